-- The open-games quota counts an account's open games at every creation.
CREATE INDEX games_created_by_status_idx ON games (created_by, status);
