-- How a game's clock counts, pinned when the game is created: 1 credits a time bank's
-- increment, and starts days per move afresh, after every action of a seat; 2 once per
-- turn of the seat. Every game from before this column keeps 1 (games without a settings
-- row read as 1 too); the server writes 2 for the games it creates. An instance of the
-- previous version sharing the database during an upgrade creates games with 1, which is
-- the clock it plays.
ALTER TABLE game_settings ADD COLUMN clock_version INTEGER NOT NULL DEFAULT 1
    CHECK (clock_version IN (1, 2));
