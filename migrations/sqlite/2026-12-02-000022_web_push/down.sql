ALTER TABLE accounts DROP COLUMN push_subscription_count;
DROP TABLE push_unseen;
DROP TABLE push_messages;
DROP TABLE push_subscriptions;
