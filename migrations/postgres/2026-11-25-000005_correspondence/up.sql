-- Correspondence play: time controls, private games, bots in seats, forfeits, and events
-- the server writes beside the engine's.
ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT '{"type":"none"}';
ALTER TABLE games ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;
-- Why a game never started: 'creator' (cancelled) or 'expired'; status is then 'cancelled'.
ALTER TABLE games ADD COLUMN cancel_reason TEXT;
CREATE INDEX games_open_created_idx ON games (status, created_at);

-- A bot seat has no account; a seat a bot took over keeps the account that left it.
ALTER TABLE seats ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE seats ADD COLUMN bot TEXT;
ALTER TABLE seats ADD COLUMN forfeit TEXT;
-- Denormalised from the clock events, so timeouts and "my turn by deadline" are indexed.
ALTER TABLE seats ADD COLUMN deadline BIGINT;
ALTER TABLE seats ADD COLUMN bank_ms BIGINT NOT NULL DEFAULT 0;
CREATE INDEX seats_deadline_idx ON seats (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX seats_bot_turn_idx ON seats (game_id) WHERE bot IS NOT NULL AND must_act;

-- 'engine' events fold into the game's state; 'server' ones (clocks, forfeits, take-overs)
-- never reach the engine.
ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'engine';

-- A bot's action has no account; `bot` names the strategy that chose it.
ALTER TABLE actions ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE actions ADD COLUMN bot TEXT;

-- Who may join a private game besides its creator.
CREATE TABLE game_invitations (
    game_id TEXT NOT NULL REFERENCES games (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX game_invitations_account_idx ON game_invitations (account_id);
