-- Work that no request makes, one row per game and kind, written by the transactions that
-- change the game: 'deadline' (a seat's clock runs; due_at is the earliest deadline),
-- 'bot' (a bot must move; due_at is when its turn came) and 'expiry' (an open game waits
-- for players; due_at is its creation). Each worker adds its own margin (the timeout's
-- grace, the open-game hours) to due_at. An instance claims a due row by writing its name
-- and a lease into it; a lease that lapses (the instance died) lets another claim it.
CREATE TABLE jobs (
    kind TEXT NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id),
    -- whose work it is (the game's creator): claims take turns between accounts
    account_id TEXT NOT NULL,
    due_at BIGINT NOT NULL,
    -- a person waits for it (a bot move in a game where a person still plays)
    interactive BOOLEAN NOT NULL DEFAULT FALSE,
    lease_owner TEXT,
    lease_until BIGINT,
    PRIMARY KEY (kind, game_id)
);
CREATE INDEX jobs_due_idx ON jobs (kind, due_at);

INSERT INTO jobs (kind, game_id, account_id, due_at)
    SELECT 'deadline', games.id, games.created_by, MIN(seats.deadline)
    FROM games JOIN seats ON seats.game_id = games.id
    WHERE games.status = 'running' AND seats.deadline IS NOT NULL
    GROUP BY games.id, games.created_by;
INSERT INTO jobs (kind, game_id, account_id, due_at, interactive)
    SELECT 'bot', games.id, games.created_by, games.updated_at,
        EXISTS (SELECT 1 FROM seats human WHERE human.game_id = games.id
            AND human.account_id IS NOT NULL AND human.bot IS NULL AND human.forfeit IS NULL)
    FROM games
    WHERE games.status = 'running' AND EXISTS (SELECT 1 FROM seats bot
        WHERE bot.game_id = games.id AND bot.bot IS NOT NULL AND bot.must_act);
INSERT INTO jobs (kind, game_id, account_id, due_at)
    SELECT 'expiry', id, created_by, created_at FROM games WHERE status = 'open';

-- A webhook is claimed as a whole while one of its deliveries is being posted, so a
-- receiver never has two deliveries in flight; claims take turns between endpoints (the
-- one served longest ago first) and between accounts.
ALTER TABLE webhooks ADD COLUMN busy_until BIGINT;
ALTER TABLE webhooks ADD COLUMN last_claimed_at BIGINT;
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
