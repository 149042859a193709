-- What an account chose beside its credentials; an account without a row has the defaults.
CREATE TABLE account_settings (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    -- Minutes before each of the account's deadlines to remind it, as a JSON array.
    reminder_minutes TEXT NOT NULL
);

-- The reminders sent, one per seat, deadline and time before it: a reminder is sent once,
-- whichever instance's referee finds it due.
CREATE TABLE reminders_sent (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    deadline BIGINT NOT NULL,
    minutes INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat, deadline, minutes)
);
