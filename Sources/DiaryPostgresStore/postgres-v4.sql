-- The Diary database on PostgreSQL, version 4: an index of the two-character pieces (bigrams)
-- of every entry's title and body, so that a search term of fewer than three characters (紅葉,
-- 京都, zz), which the trigram indexes cannot hold, is looked up instead of scanned for.
--
-- Why: such a term was a scan of every listable entry: `?q=zz` took over 5 s at 200,000
-- entries, and two-character words are the common case in Japanese. pg_bigm, which does this in
-- C, is not a Debian 12 package.
--
-- How: `entry_bigrams(title, body)` lists the bigrams of the lower-cased title and of the
-- lower-cased body, and a GIN index over that expression (no column: the table is not
-- rewritten, and rows stay their size) maps each bigram to its entries. A term's bigrams
-- (`term_bigrams`) must all be among an entry's; the store's own check (strpos) then decides,
-- so the index only narrows, as the trigram indexes do.
--
-- The list is made by two passes of regexp_replace, which cut the text into the pairs that
-- start at odd and at even characters, then one split: all in C, about three times faster here
-- than pairing the characters in SQL rows. It holds repeats, which GIN drops when it extracts
-- the keys. U+0001 separates the pairs, so a pair holding U+0001 is lost: the store never
-- looks a term holding U+0001 up here (it scans for it, as before). The same character joins
-- title and body, so no bigram spans the two.
--
-- Folding is lower(), under the database's C.UTF-8 collation, as the trigram indexes fold:
-- whatever a term matches with ASCII letters folded or with lower(), its lower-cased bigrams
-- are among the entry's.
--
-- COST 10000 (the default is 100): computing it takes 100 µs to 1 ms per 1 KB entry, strpos
-- 2 µs. Priced at the default, the planner walked entries newest first for a rare term's page,
-- computing it for each entry it passed: every entry for a term in none (3 s at 1,000,000).
-- At its price it gathers the index's few matches and sorts them (14 ms).
CREATE OR REPLACE FUNCTION entry_bigrams(title text, body text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000
    AS $$
        SELECT string_to_array(
            regexp_replace(folded, '..', E'\\&\x01', 'g') || regexp_replace(substr(folded, 2), '..', E'\\&\x01', 'g'),
            E'\x01')
        FROM (SELECT lower(title) || E'\x01' || lower(body) AS folded) AS lowered
    $$;

-- A term's lower-cased bigrams, each exactly two characters: every one of them is in
-- entry_bigrams of an entry that holds the term. Empty for a term of one character.
CREATE OR REPLACE FUNCTION term_bigrams(term text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT coalesce(array_agg(DISTINCT substr(lower(term), position, 2)), '{}')
        FROM generate_series(1, char_length(term) - 1) AS position
    $$;

-- Whether each of `bigrams` is in more than 5 % of entries, by the planner's statistics of the
-- index (none before the first ANALYZE: then false). Such a term is checked entry by entry while
-- entries are walked newest first, without the index: entry_bigrams costs about 100 µs per
-- entry, which a lossy bitmap or a filter would pay for every match, where strpos costs 2 µs.
-- Declared IMMUTABLE, which it is not, so that the planner folds it to a constant when it plans
-- a search (its argument is a constant there): the condition then holds the index's expression
-- for a rare term only. A stale answer changes a plan, never a result.
CREATE OR REPLACE FUNCTION bigrams_are_common(bigrams text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT cardinality(bigrams) > 0 AND count(*) = cardinality(bigrams)
        FROM pg_stats AS stats,
            unnest(stats.most_common_elems::text::text[], stats.most_common_elem_freqs) AS common (bigram, frequency)
        WHERE stats.schemaname = current_schema() AND stats.tablename = 'entries_bigrams'
            AND common.bigram = ANY (bigrams) AND common.frequency > 0.05
    $$;

-- Built in the migration's transaction, which holds off writes of entries (not reads) until it
-- commits: 21 minutes at 1,000,000 entries on a busy 2-core machine. To build it
-- beforehand without holding off writes, see docs/postgresql.md.
CREATE INDEX IF NOT EXISTS entries_bigrams ON entries USING gin (entry_bigrams(title, body));
