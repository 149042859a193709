-- A personal token is looked up by the hash of the secret it carries, then its id compared:
-- a known id with a wrong secret and an unknown id then cost the database the same miss,
-- and answer alike in status, body and time.
CREATE UNIQUE INDEX personal_tokens_secret_hash_idx ON personal_tokens (secret_hash);
