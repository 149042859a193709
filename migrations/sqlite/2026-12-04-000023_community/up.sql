-- Profiles: what an account says about itself (a short free text, a country as ISO 3166-1
-- alpha-2 and a language as ISO 639-1, both optional) and whether others see the day it
-- was last seen. Accounts without a row have said nothing and show that day.
CREATE TABLE profiles (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    about TEXT NOT NULL,
    country TEXT,
    language TEXT,
    show_last_seen BOOLEAN NOT NULL
);
-- The day (days since 1970-01-01, UTC) a token of the account was last checked, and how
-- many accounts it follows (kept beside the follows for the quota).
ALTER TABLE accounts ADD COLUMN last_seen_day BIGINT;
ALTER TABLE accounts ADD COLUMN follow_count INTEGER NOT NULL DEFAULT 0;

-- One-sided follows: no consent, removed by the follower (or by a block either way).
CREATE TABLE follows (
    follower_id TEXT NOT NULL REFERENCES accounts (id),
    followed_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (follower_id, followed_id)
);
CREATE INDEX follows_followed_idx ON follows (followed_id, follower_id);

-- A game's title, given at creation; games without one are named by kind and players.
ALTER TABLE game_settings ADD COLUMN title TEXT;

-- The archive and the games to watch: public games of one status, newest activity first
-- (`private` is a bound parameter in the queries, so the index holds it rather than a
-- partial index's condition).
CREATE INDEX games_public_status_idx ON games (private, status, updated_at DESC, id);
