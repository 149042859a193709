ALTER TABLE game_settings DROP COLUMN clock_version;
