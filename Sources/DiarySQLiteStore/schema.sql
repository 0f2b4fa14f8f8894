-- The Diary database, version 1 (Intern::Diary).
--
-- Applied by SQLiteDiaryStore's migration "v1" when a store opens a database that does not
-- have it yet; later changes go in new migrations, never in edits of this one.
--
-- Conventions:
-- * Timestamps are TEXT in RFC 3339, UTC, whole seconds: '2026-11-22T04:30:00Z'. Every one has
--   the same width, so text order is time order and the indexes below sort by time.
--   The CHECKs keep anything else out.
-- * Ids are AUTOINCREMENT: an id is never handed out twice, so an old link to a deleted
--   entry answers 404 instead of showing someone's newer entry.
-- * Tables are STRICT: a value of the wrong type is an error, not a silent conversion.
-- * Foreign keys cascade: deleting a user deletes their diaries, and a diary its entries.
--   (The store turns `PRAGMA foreign_keys` on for every connection.)

CREATE TABLE users (
    user_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,
    -- SHA-256 of the API token, lowercase hex. The token itself is never stored.
    token_hash  TEXT NOT NULL UNIQUE
                CHECK (length(token_hash) = 64 AND token_hash NOT GLOB '*[^0-9a-f]*'),
    created     TEXT NOT NULL
                CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z')
) STRICT;

CREATE TABLE diaries (
    diary_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    created     TEXT NOT NULL
                CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'),
    -- Moves to the time of the last entry written (created, changed or deleted) in the diary.
    updated     TEXT NOT NULL
                CHECK (updated GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'),
    -- The number of entries in the diary, kept by the triggers below in the same transaction
    -- as the change, so that neither a diary nor a page of all entries has to count rows.
    entry_count INTEGER NOT NULL DEFAULT 0 CHECK (entry_count >= 0)
) STRICT;

-- A user's diaries in id order (their first diary is the lowest id); also serves the cascade
-- from users.
CREATE INDEX diaries_by_user ON diaries (user_id);

CREATE TABLE entries (
    entry_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    diary_id    INTEGER NOT NULL REFERENCES diaries (diary_id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    created     TEXT NOT NULL
                CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'),
    updated     TEXT NOT NULL
                CHECK (updated GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z')
) STRICT;

-- All entries newest first, in the order the API lists them: no sort at query time.
CREATE INDEX entries_newest_first ON entries (created DESC, entry_id DESC);

-- One diary's entries newest first; also counts a diary's entries and serves the cascade
-- from diaries.
CREATE INDEX entries_by_diary_newest_first ON entries (diary_id, created DESC, entry_id DESC);

-- entry_count follows every change of entries, whoever makes it (the store or a person with
-- the sqlite3 shell). A diary deleted by cascade is already gone: its UPDATE changes nothing.
CREATE TRIGGER entries_count_insert AFTER INSERT ON entries BEGIN
    UPDATE diaries SET entry_count = entry_count + 1 WHERE diary_id = NEW.diary_id;
END;

CREATE TRIGGER entries_count_delete AFTER DELETE ON entries BEGIN
    UPDATE diaries SET entry_count = entry_count - 1 WHERE diary_id = OLD.diary_id;
END;

CREATE TRIGGER entries_count_move AFTER UPDATE OF diary_id ON entries
WHEN NEW.diary_id IS NOT OLD.diary_id BEGIN
    UPDATE diaries SET entry_count = entry_count - 1 WHERE diary_id = OLD.diary_id;
    UPDATE diaries SET entry_count = entry_count + 1 WHERE diary_id = NEW.diary_id;
END;

-- Idempotency keys of POST requests: a retry with the same key from the same user gets the
-- resource the first request created instead of a second one. Written in the transaction
-- that creates the resource, so a crash cannot leave one without the other. Rows older
-- than 24 hours are deleted by the next keyed write.
CREATE TABLE idempotency_keys (
    user_id     INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    -- A hash of what the request asked for: the same key with another request is refused.
    fingerprint TEXT NOT NULL,
    resource    TEXT NOT NULL CHECK (resource IN ('entry', 'diary')),
    resource_id INTEGER NOT NULL,
    created     TEXT NOT NULL
                CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'),
    PRIMARY KEY (user_id, key)
) STRICT, WITHOUT ROWID;

CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created);

-- Full-text search over titles and bodies. The trigram tokenizer indexes every run of three
-- characters, so any substring of three or more characters is found, in any language: Japanese
-- needs no word splitting. (Shorter terms are matched by a scan of the rows the other
-- conditions leave.) External content: the text lives once, in entries; the triggers keep the
-- index in step in the same transaction as the change.
CREATE VIRTUAL TABLE entries_fts USING fts5(
    title, body, content = 'entries', content_rowid = 'entry_id', tokenize = 'trigram'
);

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, body) VALUES (NEW.entry_id, NEW.title, NEW.body);
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body) VALUES ('delete', OLD.entry_id, OLD.title, OLD.body);
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, body ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body) VALUES ('delete', OLD.entry_id, OLD.title, OLD.body);
    INSERT INTO entries_fts (rowid, title, body) VALUES (NEW.entry_id, NEW.title, NEW.body);
END;

-- An entry's tags, normalised by the API (lowercase, no spaces, 1 to 40 characters).
CREATE TABLE entry_tags (
    entry_id    INTEGER NOT NULL REFERENCES entries (entry_id) ON DELETE CASCADE,
    tag         TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 40),
    PRIMARY KEY (entry_id, tag)
) STRICT, WITHOUT ROWID;

-- The entries of a tag (filters), and the counts of GET /api/tags.
CREATE INDEX entry_tags_by_tag ON entry_tags (tag, entry_id);

-- Values the server makes once per database.
CREATE TABLE settings (
    name        TEXT PRIMARY KEY,
    value       BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- Signs the paging cursors the API hands out (HMAC-SHA256), so that an altered one is refused.
INSERT INTO settings (name, value) VALUES ('cursor_secret', randomblob(32));
