CREATE TABLE events_by_row (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    seat INTEGER,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'engine',
    PRIMARY KEY (game_id, seq)
);
INSERT INTO events_by_row SELECT * FROM events;
DROP TABLE events;
ALTER TABLE events_by_row RENAME TO events;

CREATE TABLE actions_by_row (
    game_id TEXT NOT NULL REFERENCES games (id),
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    seat INTEGER NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    action TEXT NOT NULL,
    idempotency_key TEXT,
    request TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    bot TEXT,
    PRIMARY KEY (game_id, first_seq),
    UNIQUE (game_id, account_id, idempotency_key)
);
INSERT INTO actions_by_row SELECT * FROM actions;
DROP TABLE actions;
ALTER TABLE actions_by_row RENAME TO actions;
