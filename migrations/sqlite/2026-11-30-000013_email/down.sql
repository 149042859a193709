DROP TABLE mail_outbox;
DROP TABLE email_addresses;
ALTER TABLE accounts DROP COLUMN mail_topics;
