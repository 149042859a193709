-- What concerns an account across its games ("your turn", a game started or finished),
-- written in the same transaction as the events that cause it. The id orders an account's
-- feed and resumes its stream.
CREATE TABLE notifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    kind TEXT NOT NULL,
    seq BIGINT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX notifications_account_idx ON notifications (account_id, id);

-- URLs an account has notifications posted to, each with its own signing secret.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id);

-- The outbox: one row per notification and webhook, written with the notification. A
-- delivery is claimed (claimed_until) by one instance at a time with a guarded update.
CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id),
    notification_id BIGINT,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_until BIGINT,
    delivered_at BIGINT,
    failed_at BIGINT,
    last_status INTEGER,
    last_error TEXT
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (delivered_at, failed_at, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at);
