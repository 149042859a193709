-- Whether the seat must act now: games.to_act spread over the seats, kept equal to it by
-- every append, so "games where it is my turn" is one indexed query instead of a fold.
ALTER TABLE seats ADD COLUMN must_act BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE seats SET must_act = EXISTS (
    SELECT 1 FROM games, json_each(games.to_act)
    WHERE games.id = seats.game_id
      AND json_each.value = seats.seat
);
CREATE INDEX seats_account_must_act_idx ON seats (account_id, must_act);
-- The lobby lists by last activity, optionally by kind.
CREATE INDEX games_updated_idx ON games (updated_at DESC, id);
CREATE INDEX games_kind_idx ON games (kind, updated_at);
