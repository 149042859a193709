-- Settings of how this database stores things, one row each.
-- `log_form`: `compact` stores an event's payload without its leading "type" member (the
-- row's event_type holds it) and an action's request without its "action" member where
-- that repeats the row's action; `whole` stores both as written, as every version before
-- this one writes and reads them. A database that holds no events yet stores compact rows
-- at once; one that does keeps writing whole rows, so that instances of the previous
-- version sharing it during an upgrade can still read every game, until
-- `turnpost compact-log` is run once every instance reads both forms.
CREATE TABLE store_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

INSERT INTO store_settings (name, value)
SELECT 'log_form', CASE WHEN EXISTS (SELECT 1 FROM events) THEN 'whole' ELSE 'compact' END;
