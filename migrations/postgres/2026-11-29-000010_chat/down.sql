DROP TABLE game_chat_settings;
DROP TABLE chat_messages;
