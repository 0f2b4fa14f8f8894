-- The Diary database, version 5: the change feed (GET /api/changes) that offline replicas
-- sync from. Applied by SQLiteDiaryStore's migration "v5" (a gap after "v3" is another
-- branch's "v4"). The rules are StoreKernel's `ChangeFeed`; docs/offline.md has the reasoning.
--
-- Every change to an entry is numbered in the sequence of each audience that sees it: the
-- public (audience 0) when the public list changes (a public entry created, edited or deleted;
-- an entry made public or no longer public), and the owner's (audience = user_id) always. So
-- what a reader receives, positions included, moves only with changes they may see: a single
-- sequence over every write would show others when someone wrote privately.
--
-- Triggers do it, so every write path (the API's, import, seed) numbers its changes in its own
-- transaction: SQLite has one writer at a time, so positions follow commit order.

-- One counter per audience, and the highest position of a tombstone it dropped.
CREATE TABLE change_sequences (
    audience    INTEGER PRIMARY KEY,
    position    INTEGER NOT NULL DEFAULT 0,
    horizon     INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Each entry's latest change in each audience that saw it. `gone` marks a tombstone: the
-- entry was deleted, or (public audience) is no longer public. No foreign key: a tombstone
-- outlives its entry.
CREATE TABLE entry_changes (
    audience    INTEGER NOT NULL,
    entry_id    INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    gone        INTEGER NOT NULL CHECK (gone IN (0, 1)),
    PRIMARY KEY (audience, entry_id)
) STRICT, WITHOUT ROWID;

-- The feed's order, and the tombstones' (to drop the oldest).
CREATE UNIQUE INDEX entry_changes_in_order ON entry_changes (audience, position);
CREATE INDEX entry_changes_tombstones ON entry_changes (audience, position) WHERE gone = 1;

-- How many tombstones each audience keeps (StoreKernel's `ChangeFeed.tombstonesKept`).
CREATE TABLE change_retention (
    tombstones_kept INTEGER NOT NULL CHECK (tombstones_kept > 0)
) STRICT;
INSERT INTO change_retention (tombstones_kept) VALUES (10000);

-- Writing a row here numbers one change: the rule, once, for the entry triggers below.
CREATE VIEW change_log (audience, entry_id, gone) AS SELECT audience, entry_id, gone FROM entry_changes;

CREATE TRIGGER change_log_number INSTEAD OF INSERT ON change_log BEGIN
    INSERT INTO change_sequences (audience, position) VALUES (NEW.audience, 1)
        ON CONFLICT (audience) DO UPDATE SET position = position + 1;
    INSERT INTO entry_changes (audience, entry_id, position, gone)
        VALUES (NEW.audience, NEW.entry_id, (SELECT position FROM change_sequences WHERE audience = NEW.audience), NEW.gone)
        ON CONFLICT (audience, entry_id) DO UPDATE SET position = excluded.position, gone = excluded.gone;
    -- A new tombstone drops those past the newest `tombstones_kept`, raising the horizon.
    UPDATE change_sequences SET horizon = (
            SELECT position FROM entry_changes WHERE audience = NEW.audience AND gone = 1
            ORDER BY position DESC LIMIT 1 OFFSET (SELECT tombstones_kept FROM change_retention)
        )
        WHERE NEW.gone = 1 AND audience = NEW.audience AND EXISTS (
            SELECT 1 FROM entry_changes WHERE audience = NEW.audience AND gone = 1
            ORDER BY position DESC LIMIT 1 OFFSET (SELECT tombstones_kept FROM change_retention)
        );
    DELETE FROM entry_changes
        WHERE NEW.gone = 1 AND audience = NEW.audience AND gone = 1
        AND position <= (SELECT horizon FROM change_sequences WHERE audience = NEW.audience);
END;

CREATE TRIGGER entries_changes_insert AFTER INSERT ON entries BEGIN
    INSERT INTO change_log (audience, entry_id, gone) SELECT user_id, NEW.entry_id, 0 FROM diaries WHERE diary_id = NEW.diary_id;
    INSERT INTO change_log (audience, entry_id, gone) SELECT 0, NEW.entry_id, 0 WHERE NEW.visibility = 'public';
END;

CREATE TRIGGER entries_changes_update AFTER UPDATE OF diary_id, title, body, created, updated, visibility ON entries BEGIN
    -- Moved to another owner's diary (import can): a tombstone for the former owner.
    INSERT INTO change_log (audience, entry_id, gone) SELECT user_id, OLD.entry_id, 1 FROM diaries
        WHERE diary_id = OLD.diary_id AND user_id IS NOT (SELECT user_id FROM diaries WHERE diary_id = NEW.diary_id);
    INSERT INTO change_log (audience, entry_id, gone) SELECT user_id, NEW.entry_id, 0 FROM diaries WHERE diary_id = NEW.diary_id;
    INSERT INTO change_log (audience, entry_id, gone)
        SELECT 0, NEW.entry_id, NEW.visibility <> 'public' WHERE OLD.visibility = 'public' OR NEW.visibility = 'public';
END;

CREATE TRIGGER entries_changes_delete AFTER DELETE ON entries BEGIN
    INSERT INTO change_log (audience, entry_id, gone) SELECT user_id, OLD.entry_id, 1 FROM diaries WHERE diary_id = OLD.diary_id;
    INSERT INTO change_log (audience, entry_id, gone) SELECT 0, OLD.entry_id, 1 WHERE OLD.visibility = 'public';
END;

-- The entries already there, numbered by id in one pass each (a million rows through the
-- trigger above would each scan for tombstones): their owners' sequences, and the public's.
INSERT INTO entry_changes (audience, entry_id, position, gone)
    SELECT d.user_id, e.entry_id, row_number() OVER (PARTITION BY d.user_id ORDER BY e.entry_id), 0
    FROM entries e JOIN diaries d ON d.diary_id = e.diary_id;
INSERT INTO entry_changes (audience, entry_id, position, gone)
    SELECT 0, entry_id, row_number() OVER (ORDER BY entry_id), 0 FROM entries WHERE visibility = 'public';
INSERT INTO change_sequences (audience, position) SELECT audience, max(position) FROM entry_changes GROUP BY audience;
INSERT INTO change_sequences (audience) VALUES (0) ON CONFLICT (audience) DO NOTHING;
