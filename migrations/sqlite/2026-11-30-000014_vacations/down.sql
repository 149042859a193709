DROP TABLE vacations;
DROP INDEX accounts_on_vacation;
DROP INDEX seats_on_vacation;
ALTER TABLE seats DROP COLUMN vacation_until;
ALTER TABLE accounts DROP COLUMN auto_vacation;
ALTER TABLE accounts DROP COLUMN vacation_until;
