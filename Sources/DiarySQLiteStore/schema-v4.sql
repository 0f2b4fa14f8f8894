-- The Diary database, version 4: uploaded images, and which entries link to them.
--
-- Applied by SQLiteDiaryStore's migration "v4" after "v3" (schema-v3.sql). Images live in the
-- database, as blobs, so that one backup holds everything (docs/photos.md).

-- One processed image (upright, at most 2,048 px, metadata stripped, re-encoded): the original
-- upload is never kept.
CREATE TABLE media (
    -- The row, for idempotency records; never shown.
    media_row    INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The public id, in its URL /media/<id>: 128 random bits as 32 lowercase hex digits, so
    -- that it says nothing of the image or of the order of uploads (MediaID).
    media_id     TEXT NOT NULL UNIQUE
                 CHECK (length(media_id) = 32 AND media_id NOT GLOB '*[^0-9a-f]*'),
    user_id      INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    content_type TEXT NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
    width        INTEGER NOT NULL CHECK (width > 0),
    height       INTEGER NOT NULL CHECK (height > 0),
    -- length(data), kept so that a quota sums a column instead of reading every blob.
    bytes        INTEGER NOT NULL CHECK (bytes = length(data)),
    data         BLOB NOT NULL,
    created      TEXT NOT NULL
                 CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z')
) STRICT;

-- A user's images newest first (GET /api/media), and the sum their quota reads.
CREATE INDEX media_by_user_newest_first ON media (user_id, created DESC, media_row DESC);

-- The images an entry's body links to (MediaLinks), replaced in the transaction that writes
-- the body. Not a foreign key to media: a body may name an image deleted since, or mistyped,
-- and keeps its text either way.
CREATE TABLE entry_media (
    entry_id    INTEGER NOT NULL REFERENCES entries (entry_id) ON DELETE CASCADE,
    media_id    TEXT NOT NULL,
    PRIMARY KEY (entry_id, media_id)
) STRICT, WITHOUT ROWID;

-- The entries linking to an image: who may see it.
CREATE INDEX entry_media_by_media ON entry_media (media_id, entry_id);

-- An idempotency key may now have created an image: the table is made again with 'media'
-- among its resources (SQLite cannot change a CHECK in place).
CREATE TABLE idempotency_keys_v4 (
    user_id     INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    resource    TEXT NOT NULL CHECK (resource IN ('entry', 'diary', 'media')),
    resource_id INTEGER NOT NULL,
    created     TEXT NOT NULL
                CHECK (created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'),
    PRIMARY KEY (user_id, key)
) STRICT, WITHOUT ROWID;

INSERT INTO idempotency_keys_v4 SELECT user_id, key, fingerprint, resource, resource_id, created FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_v4 RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created);
