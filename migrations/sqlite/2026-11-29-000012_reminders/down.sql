DROP TABLE reminders_sent;
DROP TABLE account_settings;
