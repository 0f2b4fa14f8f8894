-- The Diary database, version 9: each tag's row carries its entry's date, visibility and diary
-- (issue 25), as PostgreSQL's schema v12.
--
-- Applied by SQLiteDiaryStore's migration "v9" after "v8". Why: a list of a tag read the tag's
-- entries from `entry_tags_by_tag`, by id, and looked each one up in `entries` for its date
-- and who may see it, before it could sort them. Page 500 of the tag `night` (13,238 of a
-- million entries) gathered and sorted them all: 39 ms; a search within a tag checked its words
-- in every entry of the tag before the first row of its page.
--
-- How: `created`, `visibility` and `diary_id` are copies of the entry's columns, under the same
-- names, so that a list's conditions on entries apply to a tag's rows as written
-- (`EntryListSQL.tagWalk`). `entry_tags_newest_first` holds them in the API's order, newest first
-- within each tag: a page of a tag reads its index from the top to its offset and stops, and
-- a private entry or another diary's is passed over without a look-up. The store writes the
-- copies with each tag (`INSERT … SELECT … FROM entries`); `entry_tags_follow_entry` keeps them in
-- step when an entry's date, visibility or diary changes, in the same transaction, whoever
-- changes it. The copies are NOT NULL: a write that forgot them fails instead of hiding a tag.
CREATE TABLE entry_tags_dated (
    entry_id    INTEGER NOT NULL REFERENCES entries (entry_id) ON DELETE CASCADE,
    tag         TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 40),
    created     TEXT NOT NULL,
    visibility  TEXT NOT NULL,
    diary_id    INTEGER NOT NULL,
    PRIMARY KEY (entry_id, tag)
) STRICT, WITHOUT ROWID;

INSERT INTO entry_tags_dated (entry_id, tag, created, visibility, diary_id)
    SELECT t.entry_id, t.tag, e.created, e.visibility, e.diary_id FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id;

DROP TABLE entry_tags;
ALTER TABLE entry_tags_dated RENAME TO entry_tags;

-- The entries of a tag by id (counts, GET /api/tags), as in version 1.
CREATE INDEX entry_tags_by_tag ON entry_tags (tag, entry_id);

-- A tag's entries newest first, with what decides who sees them: a page reads this alone.
CREATE INDEX entry_tags_newest_first ON entry_tags (tag, created DESC, entry_id DESC, visibility, diary_id);

CREATE TRIGGER entry_tags_follow_entry AFTER UPDATE OF created, visibility, diary_id ON entries
WHEN NEW.created IS NOT OLD.created OR NEW.visibility IS NOT OLD.visibility OR NEW.diary_id IS NOT OLD.diary_id BEGIN
    UPDATE entry_tags SET created = NEW.created, visibility = NEW.visibility, diary_id = NEW.diary_id
        WHERE entry_id = NEW.entry_id;
END;
