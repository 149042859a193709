ALTER TABLE accounts DROP COLUMN webhook_count;
