-- Invitations the invitee can see and decline, rematches linked to the game they play
-- again, and games abandoned by every player's vote (status 'abandoned', no new column).
ALTER TABLE game_invitations ADD COLUMN invited_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE game_invitations ADD COLUMN declined_at BIGINT;
CREATE INDEX game_invitations_pending_idx ON game_invitations (account_id, invited_at)
    WHERE declined_at IS NULL;

-- At most one rematch per game (the primary key), and a game is the rematch of one game.
CREATE TABLE rematches (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    rematch_id TEXT NOT NULL UNIQUE REFERENCES games (id)
);
