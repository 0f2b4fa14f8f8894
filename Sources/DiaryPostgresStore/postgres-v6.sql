-- The Diary database on PostgreSQL, version 6: the change feed (GET /api/changes) that offline
-- replicas sync from. (Version 5 is another branch's: media.) The rules are StoreKernel's
-- `ChangeFeed`, the same as SQLite's `schema-v5.sql`; docs/offline.md has the reasoning.
--
-- Every change to an entry is numbered in the sequence of each audience that sees it: the
-- public (audience 0) when the public list changes (a public entry created, edited or deleted;
-- an entry made public or no longer public), and the owner's (audience = user_id) always.
--
-- Commit order across servers: a position is taken by updating the audience's counter row in
-- the writing transaction, which holds that row's lock until COMMIT. A second writer of the
-- same audience waits, then takes the next number; so once a reader's snapshot holds position
-- N, it holds every position below N, and a feed page never passes a change that commits
-- later. Locks are taken owner first, then public, in every transaction.

CREATE TABLE change_sequences (
    audience    bigint PRIMARY KEY,
    position    bigint NOT NULL DEFAULT 0,
    -- The highest position of a tombstone dropped: a cursor below it may have missed one.
    horizon     bigint NOT NULL DEFAULT 0
);

-- Each entry's latest change in each audience that saw it. `gone` marks a tombstone: the
-- entry was deleted, or (public audience) is no longer public. No foreign key: a tombstone
-- outlives its entry.
CREATE TABLE entry_changes (
    audience    bigint NOT NULL,
    entry_id    bigint NOT NULL,
    position    bigint NOT NULL,
    gone        boolean NOT NULL,
    PRIMARY KEY (audience, entry_id)
);

CREATE UNIQUE INDEX entry_changes_in_order ON entry_changes (audience, position);
CREATE INDEX entry_changes_tombstones ON entry_changes (audience, position) WHERE gone;

-- How many tombstones each audience keeps (StoreKernel's `ChangeFeed.tombstonesKept`).
CREATE TABLE change_retention (
    tombstones_kept integer NOT NULL CHECK (tombstones_kept > 0)
);
INSERT INTO change_retention (tombstones_kept) VALUES (10000);

-- Numbers one change of `entry` in `audience`'s sequence; a new tombstone drops those past the
-- newest `tombstones_kept`, raising the horizon.
CREATE FUNCTION number_entry_change(change_audience bigint, changed_entry bigint, is_gone boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    numbered bigint;
    dropped bigint;
BEGIN
    INSERT INTO change_sequences AS s (audience, position) VALUES (change_audience, 1)
        ON CONFLICT (audience) DO UPDATE SET position = s.position + 1
        RETURNING s.position INTO numbered;
    INSERT INTO entry_changes AS c (audience, entry_id, position, gone) VALUES (change_audience, changed_entry, numbered, is_gone)
        ON CONFLICT (audience, entry_id) DO UPDATE SET position = EXCLUDED.position, gone = EXCLUDED.gone;
    IF is_gone THEN
        SELECT c.position INTO dropped FROM entry_changes c WHERE c.audience = change_audience AND c.gone
            ORDER BY c.position DESC LIMIT 1 OFFSET (SELECT tombstones_kept FROM change_retention);
        IF dropped IS NOT NULL THEN
            UPDATE change_sequences SET horizon = greatest(horizon, dropped) WHERE audience = change_audience;
            DELETE FROM entry_changes c WHERE c.audience = change_audience AND c.gone AND c.position <= dropped;
        END IF;
    END IF;
END;
$$;

CREATE FUNCTION entry_changes_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_owner bigint;
    new_owner bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT user_id INTO old_owner FROM diaries WHERE diary_id = OLD.diary_id;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF old_owner IS NOT NULL THEN
            PERFORM number_entry_change(old_owner, OLD.entry_id, true);
        END IF;
        IF OLD.visibility = 'public' THEN
            PERFORM number_entry_change(0, OLD.entry_id, true);
        END IF;
        RETURN NULL;
    END IF;
    SELECT user_id INTO new_owner FROM diaries WHERE diary_id = NEW.diary_id;
    -- Moved to another owner's diary (import can): a tombstone for the former owner.
    IF TG_OP = 'UPDATE' AND old_owner IS NOT NULL AND old_owner IS DISTINCT FROM new_owner THEN
        PERFORM number_entry_change(old_owner, OLD.entry_id, true);
    END IF;
    PERFORM number_entry_change(new_owner, NEW.entry_id, false);
    IF NEW.visibility = 'public' THEN
        PERFORM number_entry_change(0, NEW.entry_id, false);
    ELSIF TG_OP = 'UPDATE' THEN
        IF OLD.visibility = 'public' THEN
            PERFORM number_entry_change(0, NEW.entry_id, true);
        END IF;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER entries_changes_insert AFTER INSERT ON entries
    FOR EACH ROW EXECUTE FUNCTION entry_changes_number();
CREATE TRIGGER entries_changes_delete AFTER DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION entry_changes_number();
CREATE TRIGGER entries_changes_update AFTER UPDATE OF diary_id, title, body, created, updated, visibility ON entries
    FOR EACH ROW EXECUTE FUNCTION entry_changes_number();

-- The entries already there, numbered by id in one pass each: their owners' sequences, and the public's.
INSERT INTO entry_changes (audience, entry_id, position, gone)
    SELECT d.user_id, e.entry_id, row_number() OVER (PARTITION BY d.user_id ORDER BY e.entry_id), false
    FROM entries e JOIN diaries d ON d.diary_id = e.diary_id;
INSERT INTO entry_changes (audience, entry_id, position, gone)
    SELECT 0, entry_id, row_number() OVER (ORDER BY entry_id), false FROM entries WHERE visibility = 'public';
INSERT INTO change_sequences (audience, position) SELECT audience, max(position) FROM entry_changes GROUP BY audience;
INSERT INTO change_sequences (audience) VALUES (0) ON CONFLICT (audience) DO NOTHING;
