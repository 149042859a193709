DROP INDEX webhook_deliveries_pending_idx;
ALTER TABLE webhooks DROP COLUMN last_claimed_at;
ALTER TABLE webhooks DROP COLUMN busy_until;
DROP TABLE jobs;
