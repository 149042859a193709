DROP INDEX games_public_status_idx;
ALTER TABLE game_settings DROP COLUMN title;
DROP TABLE follows;
ALTER TABLE accounts DROP COLUMN follow_count;
ALTER TABLE accounts DROP COLUMN last_seen_day;
DROP TABLE profiles;
