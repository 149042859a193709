DROP INDEX games_kind_idx;
DROP INDEX games_updated_idx;
DROP INDEX seats_account_must_act_idx;
ALTER TABLE seats DROP COLUMN must_act;
