-- Web Push. A subscription is one browser's (one device's) push endpoint for an account,
-- with the keys its messages are encrypted to; `service` is the endpoint's host, so that
-- one push service that hangs holds only its share of the senders. It is claimed
-- (`busy_until`) while one of its messages is posted.
CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    endpoint TEXT NOT NULL UNIQUE,
    service TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    expires_at BIGINT,
    device TEXT NOT NULL,
    topics INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    last_delivered_at BIGINT,
    last_failed_at BIGINT,
    last_error TEXT,
    busy_until BIGINT,
    last_claimed_at BIGINT
);
CREATE INDEX push_subscriptions_account_idx ON push_subscriptions (account_id);

-- Messages waiting for a subscription: at most one per game (a newer notification of the
-- game replaces the text of one not yet sent), kept until sent or given up.
CREATE TABLE push_messages (
    id BIGSERIAL PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES push_subscriptions (id),
    game_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    UNIQUE (subscription_id, game_id)
);
CREATE INDEX push_messages_due_idx ON push_messages (next_attempt_at);

-- A game pushed to an account that has not looked at it since: its next notifications
-- are not pushed (but for reminders) until the account reads the game.
CREATE TABLE push_unseen (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL,
    pushed_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, game_id)
);

-- Read with a game's seats, as `webhook_count` is: whether a move's notifications go to
-- Web Push too.
ALTER TABLE accounts ADD COLUMN push_subscription_count INTEGER NOT NULL DEFAULT 0;
