-- The Diary database on PostgreSQL, version 8: scheduled posts (issue 23).
--
-- An entry written with a `created` ahead of the clock is scheduled. It is stored as a draft is
-- (EntryDraft in StoreKernel): `visibility = 'private'`, so that every rule, index and count that
-- keeps a private entry from others keeps it from them too, with the visibility it takes at its
-- time kept in `scheduled_visibility` (NULL: not scheduled). At its time any server publishes it
-- (`publishDue`): one UPDATE … WHERE still scheduled AND created <= now, so of several servers
-- doing it at once one changes the row and the others, waiting on its lock, find nothing left
-- to do. The change-feed trigger follows the change of visibility; the kept counts and
-- `public_updated` are moved in the same statement; the data version moves with the commit.
-- Adding a nullable column without a default rewrites no row.
ALTER TABLE entries ADD COLUMN IF NOT EXISTS scheduled_visibility text
    CHECK (scheduled_visibility IS NULL OR (
        scheduled_visibility IN ('public', 'unlisted', 'private') AND visibility = 'private' AND draft_visibility IS NULL
    ));

-- The scheduled entries in the order they fall due: `nextPublication` is one probe of it.
CREATE INDEX IF NOT EXISTS entries_scheduled ON entries (created) WHERE scheduled_visibility IS NOT NULL;
