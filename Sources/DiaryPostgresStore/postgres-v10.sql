-- The Diary database on PostgreSQL, version 10: the chunk index again, with each chunk keyed by
-- the range of ids its entry is in, so that a count of common words can stop, and the
-- vocabulary's trigram index without a pending list (issue 25).
--
-- Why: a GIN index hands a bitmap scan every entry a key holds before the first is read. The
-- bounded count of `night train` (words in 14 % and 43 % of 1,000,000 entries, in 6 % together)
-- needs 1,001 of them, and got 61,204 from `entries_chunks`: 24 ms in the index scan, 33 ms in
-- all, most of its request's 45 ms. The cost is in each entry the scan hands over, not in the
-- lists it reads (GIN skips through the longer list), so only fewer entries handed over help.
--
-- How: `entry_ranged_chunks(entry_id, title, body)` is `entry_chunks(title, body)` with each chunk
-- followed by a space and its entry's id range, `entry_id >> 16` (65,536 ids: 16 ranges at a
-- million entries). Chunks hold no space, so the key is unambiguous. A count reads the ranges
-- one at a time from the highest (`ranged_chunks` keys a term's chunks for one range) and stops
-- once it has its bound: for `night train`, one or two ranges, 3.5 ms before each entry is
-- checked. Rare words keep `entries_chunks`, which finds them with one key per chunk where this
-- index would need one per chunk and range.
--
-- The index function calls only pg_catalog's, as v9's do: pg_restore builds indexes with an
-- empty search_path. It writes out entry_chunks' cut again; PostgresChunkSearchTests holds the
-- two to the same chunks.
CREATE OR REPLACE FUNCTION entry_ranged_chunks(entry_id bigint, title text, body text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000
    AS $$
        SELECT ARRAY(SELECT chunk || ' ' || (entry_id >> 16) FROM unnest(array_remove(string_to_array(
            replace(replace(replace(lower(title) || ' ' || lower(body), E'\n', ' '), E'\r', ' '), E'\t', ' '),
            ' '), '')) AS chunk)
    $$;

-- The keys of `chunks` in the id range `id_range`, as `entry_ranged_chunks` writes them.
CREATE OR REPLACE FUNCTION ranged_chunks(chunks text[], id_range bigint) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT ARRAY(SELECT chunk || ' ' || id_range FROM unnest(chunks) AS chunk) $$;

-- Built in the migration's transaction, which holds off writes of entries (not reads) until it
-- commits: 7 minutes at 1,000,000 entries here. To build it beforehand, see docs/postgresql.md.
CREATE INDEX IF NOT EXISTS entries_ranged_chunks ON entries USING gin (entry_ranged_chunks(entry_id, title, body));

-- The vocabulary's trigram index writes each new chunk into its tree at once, instead of into a
-- pending list that every search reads whole until it is merged (at 4 MB, or by a vacuum). The
-- seeded million-entry database had 22,000 chunks pending in 379 pages: looking a term up took
-- 4.7 to 10.7 ms, against 0.06 to 0.6 once merged. Writes add a chunk to the vocabulary only
-- when no entry held it before, so they pay little for it.
ALTER INDEX entry_vocabulary_trigrams SET (fastupdate = off);
SELECT gin_clean_pending_list('entry_vocabulary_trigrams');
