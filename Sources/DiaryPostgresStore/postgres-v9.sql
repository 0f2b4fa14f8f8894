-- The Diary database on PostgreSQL, version 9: an index of the words of every entry, and of
-- each two neighbouring words, in front of the trigram indexes (issue 25).
--
-- Why: the trigram indexes find an entry that holds every trigram of a term anywhere, and each
-- such entry is checked by lower() and LIKE, about 23 µs for a 1 KB entry. A rare word whose
-- trigrams are all common ("zanzibar": "zan", "bar", …) had 76,827 candidates for 964 matches
-- at 1,000,000 entries: 1.9 to 3.7 s. A phrase of two common words ("river bridge") had more,
-- and ended in 503 at the time budget.
--
-- How: a "chunk" is a run of the lower-cased title or body between spaces, tabs, CRs and LFs:
-- a word with the punctuation around it ("bridge."). A term without those four characters is
-- inside one chunk of every entry that holds it, and a term of parts joined by single spaces
-- ("river bridge") spans neighbouring chunks: one ending with the first part, then one starting
-- with the second (or equal to it, when more parts follow).
-- - `entry_chunks(title, body)`: an entry's chunks; a GIN index maps each to its entries.
-- - `entry_chunk_pairs(title, body)`: each two neighbouring chunks joined by a space, hashed
--   into 2^20 buckets. Stored as text, the pairs made the index 488 MB at 100,000 entries (most
--   pairs are in one entry only); hashed, 85 MB. The other pairs of a bucket add about 150
--   candidates at a million entries, which the check drops.
-- - `entry_vocabulary`: every chunk that holds an ASCII letter or digit, kept by a trigger in
--   the writing transaction and never shrunk, with a trigram index. The store looks the chunks
--   holding a term up there (at most 200, else it searches as before), then the entries
--   holding one of them, and checks each with strpos. So the index only narrows: the results
--   are the check's, exactly what they were. Only a term holding an ASCII letter or digit is
--   looked up (a chunk holding it is in the vocabulary); others are searched as before.
--
-- Folding is lower() under the database's collation, as the term conditions fold.
--
-- COST 10000, as entry_bigrams: the planner must not compute them for each entry it walks.
--
-- The index functions call only pg_catalog's: pg_restore builds the indexes with an empty
-- search_path, where a call of another of these functions is not found. So entry_chunk_pairs
-- writes out the cut of entry_chunks and the hash of chunk_pair_bucket again;
-- PostgresChunkSearchTests holds the three to the same answers.
CREATE OR REPLACE FUNCTION entry_chunks(title text, body text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000
    AS $$
        SELECT array_remove(string_to_array(
            replace(replace(replace(lower(title) || ' ' || lower(body), E'\n', ' '), E'\r', ' '), E'\t', ' '),
            ' '), '')
    $$;

-- The bucket of two neighbouring chunks: the store computes a term's with the same function.
CREATE OR REPLACE FUNCTION chunk_pair_bucket(chunk text, next text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT hashtext(chunk || ' ' || next) & 1048575 $$;

-- The pairs come from one unnest of the chunks beside themselves shifted by one: 275 µs for a
-- 1 KB entry here, where subscripting the array in SQL took 10 ms and a window function 240 µs.
CREATE OR REPLACE FUNCTION entry_chunk_pairs(title text, body text) RETURNS integer[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000
    AS $$
        SELECT ARRAY(
            SELECT hashtext(chunk || ' ' || next) & 1048575 FROM unnest(chunks, chunks[2:]) AS pairs (chunk, next)
            WHERE next IS NOT NULL)
        FROM (SELECT array_remove(string_to_array(
            replace(replace(replace(lower(title) || ' ' || lower(body), E'\n', ' '), E'\r', ' '), E'\t', ' '),
            ' '), '') AS chunks) AS split
    $$;

CREATE TABLE IF NOT EXISTS entry_vocabulary (
    chunk text PRIMARY KEY
);

-- The chunks are inserted in order, so that two writes of an entry adding the same new chunks
-- wait for each other in one order and never deadlock (an import, which writes many entries in
-- one transaction, holds off every other write of entries first).
CREATE OR REPLACE FUNCTION entry_vocabulary_add() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
        INSERT INTO entry_vocabulary (chunk)
            SELECT DISTINCT chunk FROM unnest(entry_chunks(NEW.title, NEW.body)) AS chunk
            WHERE chunk ~ '[a-z0-9]' ORDER BY chunk
            ON CONFLICT DO NOTHING;
        RETURN NULL;
    END
    $$;

DROP TRIGGER IF EXISTS entries_vocabulary_insert ON entries;
CREATE TRIGGER entries_vocabulary_insert AFTER INSERT ON entries
    FOR EACH ROW EXECUTE FUNCTION entry_vocabulary_add();
DROP TRIGGER IF EXISTS entries_vocabulary_update ON entries;
CREATE TRIGGER entries_vocabulary_update AFTER UPDATE OF title, body ON entries
    FOR EACH ROW EXECUTE FUNCTION entry_vocabulary_add();

-- The entries written before the triggers, unless filled beforehand (docs/postgresql.md).
INSERT INTO entry_vocabulary (chunk)
    SELECT DISTINCT chunk FROM entries, unnest(entry_chunks(title, body)) AS chunk
    WHERE chunk ~ '[a-z0-9]' AND NOT EXISTS (SELECT 1 FROM entry_vocabulary)
    ON CONFLICT DO NOTHING;

CREATE INDEX IF NOT EXISTS entry_vocabulary_trigrams ON entry_vocabulary USING gin (chunk gin_trgm_ops);

-- Built in the migration's transaction, which holds off writes of entries (not reads) until it
-- commits: with the vocabulary, about 27 minutes at 1,000,000 entries here. To build them
-- beforehand without holding off writes, see docs/postgresql.md.
CREATE INDEX IF NOT EXISTS entries_chunks ON entries USING gin (entry_chunks(title, body));
CREATE INDEX IF NOT EXISTS entries_chunk_pairs ON entries USING gin (entry_chunk_pairs(title, body));

-- The planner's statistics of the new indexes, which the store reads to leave a common word to
-- the walk newest first (`mostCommonShare`): autovacuum gathers them only once a tenth of the
-- entries has changed. 20 s at 1,000,000 entries here.
ANALYZE entries;
