-- The Diary database on PostgreSQL, version 3: what writes of entries do to their diary (its
-- counts, `updated`, `public_updated`) goes to one of 16 rows of diary_activity, no longer to
-- the diary's own row.
--
-- Why: every post to a diary updated that diary's row, and held the row's lock until its COMMIT
-- was flushed and answered, so posts to one diary ran one at a time. pgbench, 16 clients
-- posting to one diary (the store's statements, prepared): 1,260/s updating the diary's row,
-- 2,821/s updating one of 16 rows, 3,102/s updating none.
--
-- A write of entries adds its changes to the row of its session's slot (the same slot as its
-- data_version row), creating the row on first use; what a diary shows is the sum of its rows'
-- counts and the latest of its rows' times and its own (`diary_totals`). The diary's own row
-- keeps `updated` and `public_updated` for the diary's own changes (created, settings), and
-- the counts move to slot 0, from where they go on.

CREATE TABLE diary_activity (
    diary_id    bigint NOT NULL REFERENCES diaries (diary_id) ON DELETE CASCADE,
    slot        smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
    -- Added to the other slots': one slot may go below zero (an entry created through one slot,
    -- deleted through another), the sum never does.
    entry_count integer NOT NULL DEFAULT 0,
    public_count integer NOT NULL DEFAULT 0,
    -- The time of the last write through this slot, and of the last one that anyone but the
    -- owner sees (see diaries.public_updated); NULL until there is one.
    updated     timestamptz,
    public_updated timestamptz,
    PRIMARY KEY (diary_id, slot)
);

INSERT INTO diary_activity (diary_id, slot, entry_count, public_count)
    SELECT diary_id, 0, entry_count, public_count FROM diaries WHERE entry_count <> 0 OR public_count <> 0;

ALTER TABLE diaries DROP COLUMN entry_count, DROP COLUMN public_count;

-- A diary as readers see it: its columns, its counts, and its times (the latest of its own and
-- its entries'). A condition on diary_id reaches the tables' primary keys through the GROUP BY.
CREATE VIEW diary_totals AS
    SELECT d.diary_id, d.user_id, d.title, d.default_visibility, d.created,
        greatest(d.updated, max(a.updated)) AS updated,
        greatest(d.public_updated, max(a.public_updated)) AS public_updated,
        coalesce(sum(a.entry_count), 0)::integer AS entry_count,
        coalesce(sum(a.public_count), 0)::integer AS public_count
    FROM diaries d LEFT JOIN diary_activity a ON a.diary_id = d.diary_id
    GROUP BY d.diary_id;
