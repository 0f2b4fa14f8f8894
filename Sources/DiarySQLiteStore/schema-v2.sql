-- The Diary database, version 2: visibility (private entries).
--
-- Applied by SQLiteDiaryStore's migration "v2" after "v1" (schema.sql). Everything that
-- exists before it becomes public: nothing already published disappears.
--
-- What another reader sees of a diary is made of its public entries only, so that nobody can
-- tell whether its owner has unlisted or private ones: `public_count` and `public_updated`
-- are what they see for `entry_count` and `updated`.

ALTER TABLE entries ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'unlisted', 'private'));

ALTER TABLE diaries ADD COLUMN default_visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (default_visibility IN ('public', 'unlisted', 'private'));

-- The number of public entries, kept by the triggers below in the same transaction as the change.
ALTER TABLE diaries ADD COLUMN public_count INTEGER NOT NULL DEFAULT 0 CHECK (public_count >= 0);

-- Moves when the diary, or what others may list of it, changes: a public entry written,
-- changed or deleted, an entry made public or made no longer public. (The store writes it.)
ALTER TABLE diaries ADD COLUMN public_updated TEXT NOT NULL DEFAULT '1970-01-01T00:00:00Z'
    CHECK (public_updated GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z');

UPDATE diaries SET public_count = entry_count, public_updated = updated;

-- Lists and search for anyone but an owner walk only public entries, in the API's order.
-- (SQLite uses a partial index when the query names `visibility = 'public'` literally.)
CREATE INDEX entries_public_newest_first ON entries (created DESC, entry_id DESC) WHERE visibility = 'public';
CREATE INDEX entries_public_by_diary_newest_first ON entries (diary_id, created DESC, entry_id DESC)
    WHERE visibility = 'public';

CREATE TRIGGER entries_public_count_insert AFTER INSERT ON entries WHEN NEW.visibility = 'public' BEGIN
    UPDATE diaries SET public_count = public_count + 1 WHERE diary_id = NEW.diary_id;
END;

CREATE TRIGGER entries_public_count_delete AFTER DELETE ON entries WHEN OLD.visibility = 'public' BEGIN
    UPDATE diaries SET public_count = public_count - 1 WHERE diary_id = OLD.diary_id;
END;

CREATE TRIGGER entries_public_count_update AFTER UPDATE OF visibility, diary_id ON entries
WHEN (OLD.visibility = 'public') <> (NEW.visibility = 'public') OR NEW.diary_id IS NOT OLD.diary_id BEGIN
    UPDATE diaries SET public_count = public_count - (OLD.visibility = 'public') WHERE diary_id = OLD.diary_id;
    UPDATE diaries SET public_count = public_count + (NEW.visibility = 'public') WHERE diary_id = NEW.diary_id;
END;

-- Full-text search in two indexes: public entries in entries_fts (as before), the others in
-- entries_private_fts. bm25 ranks by statistics of its whole index (how many rows hold a term,
-- their average length): with one index, words in private entries would move the order of
-- public results, and so tell that they exist. Each entry is in one index, so writing costs
-- what it did; a change of visibility moves it across.
CREATE VIRTUAL TABLE entries_private_fts USING fts5(
    title, body, content = 'entries', content_rowid = 'entry_id', tokenize = 'trigram'
);

DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;

-- One trigger per event, its statements in order: an entry leaves its old index before it
-- enters its new one.
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, body)
        SELECT NEW.entry_id, NEW.title, NEW.body WHERE NEW.visibility = 'public';
    INSERT INTO entries_private_fts (rowid, title, body)
        SELECT NEW.entry_id, NEW.title, NEW.body WHERE NEW.visibility <> 'public';
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body)
        SELECT 'delete', OLD.entry_id, OLD.title, OLD.body WHERE OLD.visibility = 'public';
    INSERT INTO entries_private_fts (entries_private_fts, rowid, title, body)
        SELECT 'delete', OLD.entry_id, OLD.title, OLD.body WHERE OLD.visibility <> 'public';
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, body, visibility ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body)
        SELECT 'delete', OLD.entry_id, OLD.title, OLD.body WHERE OLD.visibility = 'public';
    INSERT INTO entries_private_fts (entries_private_fts, rowid, title, body)
        SELECT 'delete', OLD.entry_id, OLD.title, OLD.body WHERE OLD.visibility <> 'public';
    INSERT INTO entries_fts (rowid, title, body)
        SELECT NEW.entry_id, NEW.title, NEW.body WHERE NEW.visibility = 'public';
    INSERT INTO entries_private_fts (rowid, title, body)
        SELECT NEW.entry_id, NEW.title, NEW.body WHERE NEW.visibility <> 'public';
END;
