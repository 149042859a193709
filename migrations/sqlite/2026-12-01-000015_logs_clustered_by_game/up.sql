-- A game's events and actions are stored in the order of their primary key, (game, seq),
-- instead of in a table ordered by a hidden row id beside an index on that key: each key was
-- stored twice and each new row written into two trees. Same columns, same constraints.
CREATE TABLE events_by_game (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    seat INTEGER,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'engine',
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
INSERT INTO events_by_game (game_id, seq, created_at, seat, event_type, schema_version,
                            payload, source)
    SELECT game_id, seq, created_at, seat, event_type, schema_version, payload, source
    FROM events;
DROP TABLE events;
ALTER TABLE events_by_game RENAME TO events;

CREATE TABLE actions_by_game (
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
) WITHOUT ROWID;
INSERT INTO actions_by_game (game_id, first_seq, last_seq, seat, account_id, action,
                             idempotency_key, request, created_at, bot)
    SELECT game_id, first_seq, last_seq, seat, account_id, action, idempotency_key, request,
           created_at, bot
    FROM actions;
DROP TABLE actions;
ALTER TABLE actions_by_game RENAME TO actions;
