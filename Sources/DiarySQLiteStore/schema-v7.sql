-- The Diary database, version 7: scheduled posts (issue 23).
--
-- Applied by SQLiteDiaryStore's migration "v7".
--
-- An entry written with a `created` ahead of the clock is scheduled. It is stored as a draft is
-- (EntryDraft in StoreKernel): `visibility = 'private'`, so that every rule, index, trigger and
-- count that keeps a private entry from others keeps it from them too, with the visibility it
-- takes at its time kept in `scheduled_visibility` (NULL: not scheduled). At its time the store
-- publishes it (`publishDue`): one UPDATE sets `visibility` from this column, and the triggers
-- that follow any change of visibility (public counts, the public full-text index, the change
-- feed) do the rest; the data version moves with the commit, so every kept answer is dropped.
ALTER TABLE entries ADD COLUMN scheduled_visibility TEXT
    CHECK (scheduled_visibility IS NULL OR (
        scheduled_visibility IN ('public', 'unlisted', 'private') AND visibility = 'private' AND draft_visibility IS NULL
    ));

-- The scheduled entries in the order they fall due: `nextPublication` is one probe of it, and
-- `publishDue` a range of it. Only scheduled entries are in it, a handful of rows.
CREATE INDEX entries_scheduled ON entries (created) WHERE scheduled_visibility IS NOT NULL;
