ALTER TABLE game_settings DROP COLUMN visibility;
