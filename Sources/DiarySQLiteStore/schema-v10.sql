-- The Diary database, version 10: each tag's count of entries, kept (issue 25), as PostgreSQL's
-- schema v13.
--
-- Applied by SQLiteDiaryStore's migration "v10" after "v9". Why: `GET /api/tags` counted every
-- tag's rows, 1.4 million at a million entries: 112 ms, and more with every entry, in a request
-- whose answer holds a few dozen tags.
--
-- How: who may list an entry is the rule of `EntryAccess.listable`: anyone a public one, the
-- owner all of theirs. So a viewer's count of a tag is its public entries, plus the viewer's
-- own entries that are not public, diary by diary:
--   - `tag_public_counts`: per tag, its public entries;
--   - `tag_hidden_counts`: per diary and tag, its entries that are not public (private,
--     unlisted, drafts and scheduled posts, all stored as not public).
-- Triggers on `entry_tags` add and take away in the writing transaction, whoever writes: the
-- store, `entry_tags_follow_entry` when an entry's visibility or diary changes, a deletion
-- cascading from an entry or a diary, or sqlite3 by hand. A count that returns to 0 keeps its
-- row, which readers pass over: the rows number the tags and diaries ever used, not entries.
CREATE TABLE tag_public_counts (
    tag         TEXT NOT NULL PRIMARY KEY,
    entry_count INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE tag_hidden_counts (
    diary_id    INTEGER NOT NULL,
    tag         TEXT NOT NULL,
    entry_count INTEGER NOT NULL,
    PRIMARY KEY (diary_id, tag)
) STRICT, WITHOUT ROWID;

-- A tag's counts in every diary: what a list's plan weighs the tag by (`TagSizes`), where the
-- primary key serves a viewer's own diaries.
CREATE INDEX tag_hidden_counts_by_tag ON tag_hidden_counts (tag);

INSERT INTO tag_public_counts (tag, entry_count)
    SELECT tag, count(*) FROM entry_tags WHERE visibility = 'public' GROUP BY tag;

INSERT INTO tag_hidden_counts (diary_id, tag, entry_count)
    SELECT diary_id, tag, count(*) FROM entry_tags WHERE visibility <> 'public' GROUP BY diary_id, tag;

-- The three triggers add a row's entry to its tag's count and take an old row's away. (The
-- WHERE of each INSERT … SELECT also keeps SQLite's parser from reading ON CONFLICT as a join's.)
CREATE TRIGGER tag_counts_insert AFTER INSERT ON entry_tags BEGIN
    INSERT INTO tag_public_counts (tag, entry_count) SELECT NEW.tag, 1 WHERE NEW.visibility = 'public'
        ON CONFLICT (tag) DO UPDATE SET entry_count = entry_count + 1;
    INSERT INTO tag_hidden_counts (diary_id, tag, entry_count) SELECT NEW.diary_id, NEW.tag, 1 WHERE NEW.visibility <> 'public'
        ON CONFLICT (diary_id, tag) DO UPDATE SET entry_count = entry_count + 1;
END;

CREATE TRIGGER tag_counts_delete AFTER DELETE ON entry_tags BEGIN
    UPDATE tag_public_counts SET entry_count = entry_count - 1 WHERE tag = OLD.tag AND OLD.visibility = 'public';
    UPDATE tag_hidden_counts SET entry_count = entry_count - 1
        WHERE diary_id = OLD.diary_id AND tag = OLD.tag AND OLD.visibility <> 'public';
END;

CREATE TRIGGER tag_counts_update AFTER UPDATE OF tag, visibility, diary_id ON entry_tags
WHEN NEW.tag IS NOT OLD.tag OR NEW.visibility IS NOT OLD.visibility OR NEW.diary_id IS NOT OLD.diary_id BEGIN
    UPDATE tag_public_counts SET entry_count = entry_count - 1 WHERE tag = OLD.tag AND OLD.visibility = 'public';
    UPDATE tag_hidden_counts SET entry_count = entry_count - 1
        WHERE diary_id = OLD.diary_id AND tag = OLD.tag AND OLD.visibility <> 'public';
    INSERT INTO tag_public_counts (tag, entry_count) SELECT NEW.tag, 1 WHERE NEW.visibility = 'public'
        ON CONFLICT (tag) DO UPDATE SET entry_count = entry_count + 1;
    INSERT INTO tag_hidden_counts (diary_id, tag, entry_count) SELECT NEW.diary_id, NEW.tag, 1 WHERE NEW.visibility <> 'public'
        ON CONFLICT (diary_id, tag) DO UPDATE SET entry_count = entry_count + 1;
END;
