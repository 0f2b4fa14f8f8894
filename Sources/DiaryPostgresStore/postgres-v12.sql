-- The Diary database on PostgreSQL, version 12: each tag's row carries its entry's date,
-- visibility and diary (issue 25), as SQLite's schema v9.
--
-- Why: a list of a tag read the tag's entries from `entry_tags_by_tag`, by id, and looked each
-- one up in `entries` for its date and who may see it, before it could sort them. Page 500 of
-- the tag `night` (13,238 of a million entries) gathered and sorted them all: 39–46 ms, 57–60
-- at worst of 20; walked newest first, 101–107 once VACUUM had run. A search within a tag
-- checked its words in every entry of the tag before the first row of its page.
--
-- How: `created`, `visibility` and `diary_id` are copies of the entry's columns, under the same
-- names, so that a list's conditions on entries apply to a tag's rows as written
-- (`EntryListSQL.tagWalk`). `entry_tags_newest_first` holds them in the API's order, newest first
-- within each tag, the visibility and diary included: a page of a tag reads this index from the
-- top to its offset and stops, an index-only scan once VACUUM has marked the pages visible. The
-- store writes the copies with each tag (`INSERT … SELECT … FROM entries`);
-- `entry_tags_follow_entry` keeps them in step when an entry's date, visibility or diary
-- changes, in the same transaction, whoever changes it. The copies are NOT NULL: a write that
-- forgot them fails instead of hiding a tag.
ALTER TABLE entry_tags ADD COLUMN IF NOT EXISTS created timestamptz,
    ADD COLUMN IF NOT EXISTS visibility text,
    ADD COLUMN IF NOT EXISTS diary_id bigint;

UPDATE entry_tags t SET created = e.created, visibility = e.visibility, diary_id = e.diary_id
    FROM entries e WHERE e.entry_id = t.entry_id;

ALTER TABLE entry_tags ALTER COLUMN created SET NOT NULL,
    ALTER COLUMN visibility SET NOT NULL,
    ALTER COLUMN diary_id SET NOT NULL;

CREATE INDEX IF NOT EXISTS entry_tags_newest_first ON entry_tags (tag, created DESC, entry_id DESC)
    INCLUDE (visibility, diary_id);

CREATE OR REPLACE FUNCTION entry_tags_follow_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE entry_tags SET created = NEW.created, visibility = NEW.visibility, diary_id = NEW.diary_id
        WHERE entry_id = NEW.entry_id;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER entry_tags_follow_entry AFTER UPDATE OF created, visibility, diary_id ON entries
    FOR EACH ROW
    WHEN (NEW.created IS DISTINCT FROM OLD.created OR NEW.visibility IS DISTINCT FROM OLD.visibility
        OR NEW.diary_id IS DISTINCT FROM OLD.diary_id)
    EXECUTE FUNCTION entry_tags_follow_entry();

ANALYZE entry_tags;
