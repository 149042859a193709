-- Limits counted in the database, so that every instance on it counts together.
-- A token bucket per limit and key (an address, an account): `tokens` as of `updated_at`,
-- and `full_at`, when it will be full again and can be forgotten.
CREATE TABLE rate_buckets (
    limit_name TEXT NOT NULL,
    bucket_key TEXT NOT NULL,
    tokens DOUBLE PRECISION NOT NULL,
    updated_at BIGINT NOT NULL,
    full_at BIGINT NOT NULL,
    PRIMARY KEY (limit_name, bucket_key)
);
CREATE INDEX rate_buckets_full_at_idx ON rate_buckets (full_at);

-- What password guessing has cost each name (by its lower-case key): the wrong passwords
-- left before waits start, those past it, and until when addresses that never signed in to
-- the name wait.
CREATE TABLE guessed_names (
    name_key TEXT PRIMARY KEY,
    allowance DOUBLE PRECISION NOT NULL,
    overdrawn INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    blocked_until BIGINT
);
CREATE INDEX guessed_names_updated_at_idx ON guessed_names (updated_at);

-- The addresses that signed in to each name: others' guesses never hold them back.
CREATE TABLE sign_in_addresses (
    name_key TEXT NOT NULL,
    address TEXT NOT NULL,
    signed_in_at BIGINT NOT NULL,
    PRIMARY KEY (name_key, address)
);
CREATE INDEX sign_in_addresses_signed_in_at_idx ON sign_in_addresses (signed_in_at);
