ALTER TABLE seats DROP COLUMN abandon_vote;
DROP TABLE rematches;
DROP INDEX game_invitations_pending_idx;
ALTER TABLE game_invitations DROP COLUMN declined_at;
ALTER TABLE game_invitations DROP COLUMN invited_at;
