-- Settings of how this database stores things, one row each.
-- `event_payloads`: `compact` rows store an event's payload without its leading "type"
-- member (the row's event_type holds it); `whole` rows store it whole, as every version
-- before this one wrote and reads. A database that holds no events yet stores them compact
-- at once; one that does keeps writing them whole, so that instances of the previous
-- version sharing it during an upgrade can still read every game, until
-- `turnpost compact-event-payloads` is run once every instance reads both forms.
CREATE TABLE store_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

INSERT INTO store_settings (name, value)
SELECT 'event_payloads', CASE WHEN EXISTS (SELECT 1 FROM events) THEN 'whole' ELSE 'compact' END;
