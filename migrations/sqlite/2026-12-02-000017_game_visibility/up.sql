-- Who may see a game: `public` (listed, anyone watches), `unlisted` (anyone with its id
-- watches, never listed, in nobody's public history) or `private` (only its seats and,
-- while it is open, its invitees see it at all). `games.private` keeps saying whether a
-- game is public at all (true for unlisted and private games), so lists filter on it alone
-- and instances of the previous version sharing the database during an upgrade list
-- neither. A game created private before this column existed becomes private in the
-- stronger sense: its creator asked for privacy. Games without a settings row (from before
-- settings) are public or, when `games.private`, private.
ALTER TABLE game_settings ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'unlisted', 'private'));
UPDATE game_settings SET visibility = 'private'
    WHERE game_id IN (SELECT id FROM games WHERE private);
