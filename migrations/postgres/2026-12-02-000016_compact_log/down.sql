-- Every compact row whole again, as the versions before this one read them.
UPDATE events
SET payload = '{"type":"' || event_type || '"' ||
    CASE WHEN payload = '{}' THEN '}' ELSE ',' || substr(payload, 2) END
WHERE payload NOT LIKE '{"type":%';

UPDATE actions
SET request = CASE WHEN request = '{}' THEN '{"action":' || action || '}'
    ELSE substr(request, 1, length(request) - 1) || ',"action":' || action || '}' END
WHERE request NOT LIKE '%"action":%';

DROP TABLE store_settings;
