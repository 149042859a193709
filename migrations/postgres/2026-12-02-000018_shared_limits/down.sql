DROP TABLE sign_in_addresses;
DROP TABLE guessed_names;
DROP TABLE rate_buckets;
