-- A game's settings beside its columns (chat, ratings): the chat's table grows into them.
ALTER TABLE game_chat_settings RENAME TO game_settings;
-- Whether the game counts for its players' ratings, chosen at creation (games from before
-- ratings do not).
ALTER TABLE game_settings ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
-- The order in which finished rated games changed the ratings: a rebuild replays them in it.
ALTER TABLE game_settings ADD COLUMN rating_order BIGINT;
CREATE UNIQUE INDEX game_settings_rating_order_idx ON game_settings (rating_order);

-- The last rating order given out. Taking the next one locks this row until the commit, so
-- rating changes are made one game at a time, in the order recorded.
CREATE TABLE rating_counter (
    id INTEGER PRIMARY KEY,
    last BIGINT NOT NULL
);
INSERT INTO rating_counter (id, last) VALUES (1, 0);

-- Each account's Weng-Lin rating per game kind; `conservative` (rating minus three times
-- the uncertainty) orders the leaderboard.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    conservative DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, kind)
);
CREATE INDEX ratings_leaderboard_idx ON ratings (kind, conservative);

-- What each rated game did to each of its players' ratings.
CREATE TABLE rating_changes (
    game_id TEXT NOT NULL REFERENCES games (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    seat INTEGER NOT NULL,
    place INTEGER NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    uncertainty_before DOUBLE PRECISION NOT NULL,
    rating_after DOUBLE PRECISION NOT NULL,
    uncertainty_after DOUBLE PRECISION NOT NULL,
    rating_order BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX rating_changes_account_idx ON rating_changes (account_id, rating_order);
