-- Blocks, reports and moderation.
-- An account's standing: `moderator` accounts moderate (granted with `turnpost
-- grant-moderator`); a muted account writes no chat until `chat_muted_until`; a
-- suspended one cannot sign in and its running games went on without it.
ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player'
    CHECK (role IN ('player', 'moderator'));
ALTER TABLE accounts ADD COLUMN chat_muted_until BIGINT;
ALTER TABLE accounts ADD COLUMN suspended_at BIGINT;

-- `account_id` blocked `blocked_id`: no invitations, rematches, chat or mentions between
-- them reach the blocker, and neither joins the other's invitation-only games.
CREATE TABLE blocks (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, blocked_id)
);
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id, account_id);

-- What an account reported: another account, or one of its chat messages (kept here as it
-- read when reported, so that moderators see it in a game they may not read, and after
-- it is deleted).
CREATE TABLE reports (
    id BIGSERIAL PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES accounts (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT REFERENCES games (id),
    message_id BIGINT,
    message_text TEXT,
    reason TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    resolved_at BIGINT,
    resolved_by TEXT REFERENCES accounts (id)
);
CREATE INDEX reports_open_idx ON reports (resolved_at, id);
CREATE INDEX reports_account_idx ON reports (account_id, id);

-- Every moderator's action, with who and why: the audit log. `moderator_id` is null for
-- what an operator did with a `turnpost` command.
CREATE TABLE moderation_log (
    id BIGSERIAL PRIMARY KEY,
    moderator_id TEXT REFERENCES accounts (id),
    action TEXT NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    game_id TEXT REFERENCES games (id),
    message_id BIGINT,
    report_id BIGINT,
    reason TEXT NOT NULL,
    until_at BIGINT,
    created_at BIGINT NOT NULL
);

-- A message a moderator hid: a tombstone like a deleted one, saying who removed it.
ALTER TABLE chat_messages ADD COLUMN hidden_at BIGINT;
