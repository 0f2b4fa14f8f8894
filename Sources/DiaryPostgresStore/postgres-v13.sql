-- The Diary database on PostgreSQL, version 13: each tag's count of entries, kept (issue 25), as
-- SQLite's schema v10.
--
-- Why: `GET /api/tags` counted every tag's rows, 1.4 million at a million entries: 143 ms, and
-- more with every entry, in a request whose answer holds a few dozen tags.
--
-- How: who may list an entry is the rule of `EntryAccess.listable`: anyone a public one, the
-- owner all of theirs. So a viewer's count of a tag is its public entries, plus the viewer's
-- own entries that are not public, diary by diary:
--   - `tag_public_counts`: per tag, its public entries;
--   - `tag_hidden_counts`: per diary and tag, its entries that are not public (private,
--     unlisted, drafts and scheduled posts, all stored as not public).
-- Row triggers on `entry_tags` add and take away in the writing transaction, whoever writes: the
-- store, `entry_tags_follow_entry` when an entry's visibility or diary changes, a deletion
-- cascading from an entry or a diary, or psql.
--
-- Each count is split over 16 rows, as a diary's are in `diary_activity` (v3): a write adds to
-- the row of its backend's slot, so that posts with a common tag from several connections do not
-- wait one after another on one row's lock until each COMMIT. A slot's row may go below zero (a
-- tag added through one slot, taken away through another); the sum never does. A count that
-- returns to 0 keeps its rows, which readers pass over: the rows number the tags and diaries
-- ever used, times 16 at most, not entries.

-- Writes of tags wait until the counts are filled and the triggers are in place: none is lost
-- between the two. (Readers go on.)
LOCK TABLE entry_tags IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE tag_public_counts (
    tag         text NOT NULL,
    slot        smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
    entry_count integer NOT NULL,
    PRIMARY KEY (tag, slot)
);

CREATE TABLE tag_hidden_counts (
    diary_id    bigint NOT NULL,
    tag         text NOT NULL,
    slot        smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
    entry_count integer NOT NULL,
    PRIMARY KEY (diary_id, tag, slot)
);

-- A tag's counts in every diary: what a list's plan weighs the tag by (`TagSizes`), where the
-- primary key serves a viewer's own diaries.
CREATE INDEX tag_hidden_counts_by_tag ON tag_hidden_counts (tag);

INSERT INTO tag_public_counts (tag, slot, entry_count)
    SELECT tag, 0, count(*) FROM entry_tags WHERE visibility = 'public' GROUP BY tag;

INSERT INTO tag_hidden_counts (diary_id, tag, slot, entry_count)
    SELECT diary_id, tag, 0, count(*) FROM entry_tags WHERE visibility <> 'public' GROUP BY diary_id, tag;

-- Adds `change` to the count of `added_tag` for an entry of `added_visibility` in `added_diary`,
-- in the row of this backend's slot.
CREATE OR REPLACE FUNCTION tag_counts_add(added_tag text, added_visibility text, added_diary bigint, change integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    own_slot smallint := pg_backend_pid() % 16;
BEGIN
    IF added_visibility = 'public' THEN
        INSERT INTO tag_public_counts AS c (tag, slot, entry_count) VALUES (added_tag, own_slot, change)
            ON CONFLICT (tag, slot) DO UPDATE SET entry_count = c.entry_count + change;
    ELSE
        INSERT INTO tag_hidden_counts AS c (diary_id, tag, slot, entry_count) VALUES (added_diary, added_tag, own_slot, change)
            ON CONFLICT (diary_id, tag, slot) DO UPDATE SET entry_count = c.entry_count + change;
    END IF;
END;
$$;

-- A row's entry counted in, an old row's taken out.
CREATE OR REPLACE FUNCTION tag_counts_follow_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM tag_counts_add(OLD.tag, OLD.visibility, OLD.diary_id, -1);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM tag_counts_add(NEW.tag, NEW.visibility, NEW.diary_id, 1);
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER tag_counts_follow_tags AFTER INSERT OR DELETE ON entry_tags
    FOR EACH ROW EXECUTE FUNCTION tag_counts_follow_tags();

CREATE OR REPLACE TRIGGER tag_counts_follow_moves AFTER UPDATE OF tag, visibility, diary_id ON entry_tags
    FOR EACH ROW
    WHEN (NEW.tag IS DISTINCT FROM OLD.tag OR NEW.visibility IS DISTINCT FROM OLD.visibility
        OR NEW.diary_id IS DISTINCT FROM OLD.diary_id)
    EXECUTE FUNCTION tag_counts_follow_tags();

ANALYZE tag_public_counts, tag_hidden_counts;
