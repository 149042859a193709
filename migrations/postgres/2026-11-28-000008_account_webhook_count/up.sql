-- How many webhooks the account has, kept with them, so that an append learns with the
-- game's seats whether a notification has any webhook to queue for, instead of looking
-- the webhooks up for every notification.
ALTER TABLE accounts ADD COLUMN webhook_count INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET webhook_count = (
    SELECT count(*) FROM webhooks WHERE webhooks.account_id = accounts.id
);
