CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- lower-cased name: names are unique regardless of case
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    options TEXT NOT NULL,
    seat_count INTEGER NOT NULL,
    status TEXT NOT NULL,
    -- hex-encoded 32-byte seed of every random outcome; secret until the game is finished
    seed TEXT NOT NULL,
    created_by TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- denormalised from the event log so lists and the optimistic lock need no fold
    current_seq BIGINT NOT NULL,
    to_act TEXT NOT NULL,
    outcome TEXT
);
CREATE INDEX games_status_idx ON games (status, updated_at);

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, account_id)
);
CREATE INDEX seats_account_idx ON seats (account_id);

-- The only source of truth for a game's state.
CREATE TABLE events (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    seat INTEGER,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- Every accepted action with the events it caused, for idempotent retries and replay checks.
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (id),
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    seat INTEGER NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    action TEXT NOT NULL,
    idempotency_key TEXT,
    request TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, first_seq),
    UNIQUE (game_id, account_id, idempotency_key)
);
