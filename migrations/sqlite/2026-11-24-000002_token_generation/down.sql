ALTER TABLE accounts DROP COLUMN token_generation;
