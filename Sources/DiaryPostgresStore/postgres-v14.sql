-- The Diary database on PostgreSQL, version 14: each tag's row carries all of its entry's tags
-- (issue 25), as SQLite's schema v11.
--
-- Why: a list of two tags walks the first tag's rows newest first (`EntryListSQL.tagWalk`) and
-- asked, of each, whether its entry holds the second: a seek in the tags' primary key per row.
-- Page 500 of `food` and `travel` (118,250 and 90,404 of a million entries) sought 110,000
-- times: 116 ms through the server, 268 in psql.
--
-- How: `all_tags` holds the entry's tags, sorted, so that a row answers for its entry's other
-- tags without a seek (`EntrySQLDialect.carriesTag`), and `entry_tags_newest_first` includes it:
-- the same page reads the index alone, 34 ms in psql. Triggers write it for every row of an
-- entry whenever rows of the entry are inserted, deleted or given another tag or entry, in the
-- writing transaction, whoever writes: once per statement for inserts and deletions, so that a
-- batch of a seed or an import updates each row once.
--
-- The UPDATE below leaves a dead version of every tag's row until VACUUM, and an index-only scan
-- of the new index checks the table for rows on pages VACUUM has not marked visible yet.

-- Writes of tags wait until every row is filled and the triggers are in place. The ALTER TABLE
-- below holds off reads of tags too, until the migration commits (27 s at a million entries).
LOCK TABLE entry_tags IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE entry_tags ADD COLUMN all_tags text[] NOT NULL DEFAULT '{}';

UPDATE entry_tags t SET all_tags = s.all_tags
    FROM (SELECT entry_id, array_agg(tag ORDER BY tag) AS all_tags FROM entry_tags GROUP BY entry_id) s
    WHERE s.entry_id = t.entry_id;

DROP INDEX entry_tags_newest_first;
CREATE INDEX entry_tags_newest_first ON entry_tags (tag, created DESC, entry_id DESC) INCLUDE (visibility, diary_id, all_tags);

-- Every row of the entries in `changed_rows` (the statement's inserted or deleted rows) given
-- its entry's tags as they are now.
CREATE OR REPLACE FUNCTION entry_tags_gather() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE entry_tags t SET all_tags = s.all_tags
        FROM (SELECT g.entry_id, array_agg(g.tag ORDER BY g.tag) AS all_tags FROM entry_tags g
              WHERE g.entry_id IN (SELECT entry_id FROM changed_rows) GROUP BY g.entry_id) s
        WHERE t.entry_id = s.entry_id AND t.all_tags IS DISTINCT FROM s.all_tags;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER entry_tags_gather_insert AFTER INSERT ON entry_tags
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_gather();

CREATE OR REPLACE TRIGGER entry_tags_gather_delete AFTER DELETE ON entry_tags
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_tags_gather();

-- A row given another tag or entry, by hand: a transition table cannot go with a column list,
-- so this one runs per row, for both entries.
CREATE OR REPLACE FUNCTION entry_tags_gather_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE entry_tags t SET all_tags = ARRAY(SELECT g.tag FROM entry_tags g WHERE g.entry_id = t.entry_id ORDER BY g.tag)
        WHERE t.entry_id IN (OLD.entry_id, NEW.entry_id);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER entry_tags_gather_update AFTER UPDATE OF tag, entry_id ON entry_tags
    FOR EACH ROW WHEN (NEW.tag IS DISTINCT FROM OLD.tag OR NEW.entry_id IS DISTINCT FROM OLD.entry_id)
    EXECUTE FUNCTION entry_tags_gather_moved();

ANALYZE entry_tags;
