-- Until when the account's player is on vacation (null: not), read with the seats of its
-- games so that every append knows whose clocks stand still; and whether a deadline that
-- would pass starts a vacation day instead while the year's allowance lasts.
ALTER TABLE accounts ADD COLUMN vacation_until BIGINT;
ALTER TABLE accounts ADD COLUMN auto_vacation BOOLEAN NOT NULL DEFAULT FALSE;

-- Until when the seat's clock stands still for its player's vacation, as the game's log
-- says (vacation_started, vacation_ended): null when it is not.
ALTER TABLE seats ADD COLUMN vacation_until BIGINT;

-- What the deadline task looks for on every pass: seats standing still, and accounts
-- away (rows stay after a vacation ran out; the range is the current ones).
CREATE INDEX seats_on_vacation ON seats (vacation_until) WHERE vacation_until IS NOT NULL;
CREATE INDEX accounts_on_vacation ON accounts (vacation_until)
    WHERE vacation_until IS NOT NULL;

-- Every vacation taken, for the yearly allowance: from started_at to ended_at (when it was
-- ended early) or ends_at.
CREATE TABLE vacations (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    started_at BIGINT NOT NULL,
    ends_at BIGINT NOT NULL,
    ended_at BIGINT,
    -- Started by a deadline that would have passed, not by the player.
    automatic BOOLEAN NOT NULL
);
CREATE INDEX vacations_by_account ON vacations (account_id, started_at);
