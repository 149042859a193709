-- Which notifications an account has mailed, as a bit per topic (see service::email):
-- nonzero only while its address is confirmed, kept with the account so that an append
-- learns with the game's seats whether a notification is to be mailed.
ALTER TABLE accounts ADD COLUMN mail_topics INTEGER NOT NULL DEFAULT 0;

-- An account's mail address and what it wants mailed.
CREATE TABLE email_addresses (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    address TEXT NOT NULL,
    -- Null until the address is confirmed through the link mailed to it.
    confirmed_at BIGINT,
    -- SHA-256 (hex) of the confirmation link's token while one is outstanding.
    confirmation_hash TEXT,
    confirmation_expires_at BIGINT,
    -- The topics chosen (bits, as accounts.mail_topics while confirmed).
    topics INTEGER NOT NULL,
    -- Chosen notifications wait for a daily digest at this hour (UTC) instead.
    digest BOOLEAN NOT NULL,
    digest_hour INTEGER NOT NULL,
    -- The token of the one-click unsubscribe link in every mail; new with each address.
    unsubscribe_token TEXT NOT NULL UNIQUE,
    -- An instance sends this account's mail until then.
    busy_until BIGINT,
    last_mailed_at BIGINT,
    created_at BIGINT NOT NULL
);

-- What is to be mailed, written in the transaction that causes it (a notification, or an
-- address to confirm), and sent by the mail workers: one mail per account at a time
-- carries every item due.
CREATE TABLE mail_outbox (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    address TEXT NOT NULL,
    -- The notification's kind, or confirm_address.
    kind TEXT NOT NULL,
    notification_id BIGINT,
    payload TEXT NOT NULL,
    due_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    sent_at BIGINT,
    failed_at BIGINT,
    last_error TEXT,
    -- The Message-ID of the mail that carried it.
    message_id TEXT
);
-- Not partial: the claims look for an account's unsent items, the record of a sent mail
-- for its old ones.
CREATE INDEX mail_outbox_by_account ON mail_outbox (account_id, due_at);
CREATE INDEX mail_outbox_address ON mail_outbox (address, created_at);
