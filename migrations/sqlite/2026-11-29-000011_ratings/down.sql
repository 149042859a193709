DROP TABLE rating_changes;
DROP TABLE ratings;
DROP TABLE rating_counter;
DROP INDEX game_settings_rating_order_idx;
ALTER TABLE game_settings DROP COLUMN rating_order;
ALTER TABLE game_settings DROP COLUMN rated;
ALTER TABLE game_settings RENAME TO game_chat_settings;
