-- Whether this session's server is a standby replaying the primary's WAL (a read
-- replica), not the primary.
SELECT pg_is_in_recovery() AS in_recovery
