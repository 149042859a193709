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

-- A seat's standing vote to abandon the game, kept with the seat as its deadline is (the
-- log's abandon_voted and abandon_vote_withdrawn events say the same), so that a game's
-- summary shows who agreed without reading its log.
ALTER TABLE seats ADD COLUMN abandon_vote BOOLEAN NOT NULL DEFAULT FALSE;
