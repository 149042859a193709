-- A chat per game: messages by its players (and spectators, where the game lets them
-- write), kept with the game and exported with it. A deleted message stays as a tombstone:
-- its text is emptied and deleted_at set.
CREATE TABLE chat_messages (
    id BIGSERIAL PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    -- The author's seat when they wrote; null for a spectator.
    seat INTEGER,
    body TEXT NOT NULL,
    -- The names the message mentions that were notified, as a JSON array.
    mentions TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX chat_messages_game_idx ON chat_messages (game_id, id);

-- Who may write in a game's chat besides its players, chosen at creation.
CREATE TABLE game_chat_settings (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    spectators_may_write BOOLEAN NOT NULL
);
