-- Correspondence play: time controls, private games, bots in seats, forfeits, and events
-- the server writes beside the engine's.
ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT '{"type":"none"}';
ALTER TABLE games ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;
-- Why a game never started: 'creator' (cancelled) or 'expired'; status is then 'cancelled'.
ALTER TABLE games ADD COLUMN cancel_reason TEXT;
CREATE INDEX games_open_created_idx ON games (status, created_at);

-- A bot seat has no account; a seat a bot took over keeps the account that left it.
-- SQLite cannot drop NOT NULL, so the table is rebuilt.
CREATE TABLE seats_new (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    joined_at BIGINT NOT NULL,
    must_act BOOLEAN NOT NULL DEFAULT FALSE,
    bot TEXT,
    forfeit TEXT,
    -- Denormalised from the clock events, so timeouts and "my turn by deadline" are indexed.
    deadline BIGINT,
    bank_ms BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, account_id)
);
INSERT INTO seats_new (game_id, seat, account_id, joined_at, must_act)
    SELECT game_id, seat, account_id, joined_at, must_act FROM seats;
DROP TABLE seats;
ALTER TABLE seats_new RENAME TO seats;
CREATE INDEX seats_account_idx ON seats (account_id);
CREATE INDEX seats_account_must_act_idx ON seats (account_id, must_act);
CREATE INDEX seats_deadline_idx ON seats (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX seats_bot_turn_idx ON seats (game_id) WHERE bot IS NOT NULL AND must_act;

-- 'engine' events fold into the game's state; 'server' ones (clocks, forfeits, take-overs)
-- never reach the engine.
ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'engine';

-- A bot's action has no account; `bot` names the strategy that chose it.
CREATE TABLE actions_new (
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
INSERT INTO actions_new (game_id, first_seq, last_seq, seat, account_id, action,
                         idempotency_key, request, created_at)
    SELECT game_id, first_seq, last_seq, seat, account_id, action, idempotency_key, request,
           created_at
    FROM actions;
DROP TABLE actions;
ALTER TABLE actions_new RENAME TO actions;

-- Who may join a private game besides its creator.
CREATE TABLE game_invitations (
    game_id TEXT NOT NULL REFERENCES games (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX game_invitations_account_idx ON game_invitations (account_id);
