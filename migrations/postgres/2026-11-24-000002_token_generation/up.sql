-- Bumped by a password change or "sign out everywhere": a token carries the generation it
-- was issued in and is refused once the account has moved past it.
ALTER TABLE accounts ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
