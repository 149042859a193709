DROP TABLE actions;
DROP TABLE events;
DROP TABLE seats;
DROP TABLE games;
DROP TABLE accounts;
