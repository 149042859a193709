ALTER TABLE chat_messages DROP COLUMN hidden_at;
DROP TABLE moderation_log;
DROP TABLE reports;
DROP TABLE blocks;
ALTER TABLE accounts DROP COLUMN suspended_at;
ALTER TABLE accounts DROP COLUMN chat_muted_until;
ALTER TABLE accounts DROP COLUMN role;
