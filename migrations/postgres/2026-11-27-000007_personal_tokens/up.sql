-- Named tokens an account creates for its scripts and bots, each limited to some scopes
-- (space-separated names, e.g. 'games:read games:play') and an expiry. Only the SHA-256 of
-- a token's secret is kept (hex), never the secret. Revoking a token deletes its row; a
-- password change or "sign out everywhere" deletes all of the account's.
CREATE TABLE personal_tokens (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    -- written at most about once a minute per token, not on every request
    last_used_at BIGINT
);
CREATE INDEX personal_tokens_account_idx ON personal_tokens (account_id, created_at);
