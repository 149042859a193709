-- Every compact payload whole again, as the versions before this one read them.
UPDATE events
SET payload = '{"type":"' || event_type || '"' ||
    CASE WHEN payload = '{}' THEN '}' ELSE ',' || substr(payload, 2) END
WHERE payload NOT LIKE '{"type":%';

DROP TABLE store_settings;
