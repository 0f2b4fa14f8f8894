-- The Diary database on PostgreSQL, version 2: entry_count and public_count kept by the store,
-- no longer by triggers.
--
-- Why: with the triggers, a post updated its diary's row twice (the AFTER INSERT trigger, then
-- the store's `updated`/`public_updated`), and the INSERT's foreign-key check share-locked that
-- row first, so that the trigger's UPDATE had to turn the lock into a MultiXact. Every post of
-- one diary waits for that row, so this was the cost of posts to one diary (pgbench, 16
-- clients, one diary: 230-390/s as in version 1, 562-785/s with one UPDATE of the row per post).
-- Now every write of entries updates its diary's row once, counts and times in one statement.
-- A new entry is one statement (`insertEntry`): its INSERT, then its diary's UPDATE, both before
-- the foreign-key check at the statement's end, which finds the row locked by this transaction
-- and needs no MultiXact.
--
-- The rule stays: the counts change in the same transaction as the entries (create, delete,
-- visibility change, import, seed); `consistencyCheck()` compares them with the entries. A
-- change of entries made by hand (psql) must now adjust the counts too.

DROP TRIGGER entries_count_insert ON entries;
DROP TRIGGER entries_count_delete ON entries;
DROP TRIGGER entries_count_update ON entries;
DROP FUNCTION diary_entry_counts();

