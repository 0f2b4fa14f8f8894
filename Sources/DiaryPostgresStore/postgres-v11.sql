-- The Diary database on PostgreSQL, version 11: an index of the characters of every entry's
-- title and body, so that a search term of one character (😀, %, 雨) is looked up instead of
-- scanned for (issue 25).
--
-- Why: a term of one character has no bigram (schema v4), so it was scanned for, newest first,
-- until its count had its bound. A common character stops the scan early (`e`: 6 ms at
-- 1,000,000 entries); one in few entries or none read every entry: `?q=😀` 4.2 s, `?q=%` and
-- `?q=_` 1.0 s. SQLite's `entries_grams` holds single characters already.
--
-- How: `entry_characters(title, body)` lists every character of the lower-cased title and body,
-- joined by U+0001 (which the store never looks up), with repeats, which GIN drops when it
-- extracts the keys; `string_to_array(…, NULL)` cuts the text into characters in C, about
-- 50 µs per 1 KB entry. As with the bigrams, lower() folds at least what the check folds (A–Z),
-- so the index only narrows and `strpos` decides. A character in more than 5 % of entries (by
-- the planner's statistics, `keys_are_common`) is not looked up: the scan finds its page at
-- once.
--
-- COST 10000, as entry_bigrams': priced at the default, the planner would compute it for each
-- entry a walk passes instead of reading the index.
CREATE OR REPLACE FUNCTION entry_characters(title text, body text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000
    AS $$ SELECT string_to_array(lower(title) || E'\x01' || lower(body), NULL) $$;

-- Whether each of `keys` is in more than 5 % of entries, by the planner's statistics of the
-- expression index `index_name` (none before the first ANALYZE: then false): v4's
-- `bigrams_are_common` for any such index, which it replaces. IMMUTABLE, which it is not, so
-- that the planner folds it to a constant when it plans a search (its arguments are constants
-- there): the condition then holds the index's expression for rare keys only. A stale answer
-- changes a plan, never a result.
CREATE OR REPLACE FUNCTION keys_are_common(keys text[], index_name text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT cardinality(keys) > 0 AND count(*) = cardinality(keys)
        FROM pg_stats AS stats,
            unnest(stats.most_common_elems::text::text[], stats.most_common_elem_freqs) AS common (key, frequency)
        WHERE stats.schemaname = current_schema() AND stats.tablename = index_name
            AND common.key = ANY (keys) AND common.frequency > 0.05
    $$;

DROP FUNCTION IF EXISTS bigrams_are_common(text[]);

-- Built in the migration's transaction, which holds off writes of entries (not reads) until it
-- commits: 4 minutes at 1,000,000 entries on the 2-core machine with maintenance_work_mem at
-- 1 GB (the migration uses the server's setting). To build it beforehand without holding off
-- writes, see docs/postgresql.md.
CREATE INDEX IF NOT EXISTS entries_characters ON entries USING gin (entry_characters(title, body));

-- The index's statistics, which `keys_are_common` reads: without them every character
-- counts as rare until autovacuum analyzes the table, and a page of `e` (in nearly every entry)
-- would read the index's list of every entry. About 10 s at 1,000,000 entries.
ANALYZE entries;
