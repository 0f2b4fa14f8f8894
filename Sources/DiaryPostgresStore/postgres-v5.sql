-- The Diary database on PostgreSQL, version 5: uploaded images, and which entries link to them.
-- The same tables as SQLite's schema-v4.sql (the images in the database, as bytea, so that one
-- backup holds everything and every server behind one database serves an image the moment
-- its upload is answered: docs/photos.md).

-- One processed image (upright, at most 2,048 px, metadata stripped, re-encoded): the original
-- upload is never kept.
CREATE TABLE media (
    -- The row, for idempotency records; never shown.
    media_row    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The public id, in its URL /media/<id>: 128 random bits as 32 lowercase hex digits (MediaID).
    media_id     text NOT NULL UNIQUE CHECK (media_id ~ '^[0-9a-f]{32}$'),
    user_id      bigint NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
    width        integer NOT NULL CHECK (width > 0),
    height       integer NOT NULL CHECK (height > 0),
    -- octet_length(data), kept so that a quota sums a column instead of reading every value.
    bytes        integer NOT NULL CHECK (bytes = octet_length(data)),
    -- Already compressed (JPEG, PNG): TOAST's compression would only spend time.
    data         bytea NOT NULL,
    created      timestamptz NOT NULL
);
ALTER TABLE media ALTER COLUMN data SET STORAGE EXTERNAL;

-- A user's images newest first (GET /api/media), and the sum their quota reads.
CREATE INDEX media_by_user_newest_first ON media (user_id, created DESC, media_row DESC);

-- The images an entry's body links to (MediaLinks), replaced in the transaction that writes
-- the body. Not a foreign key to media: a body may name an image deleted since, or mistyped.
CREATE TABLE entry_media (
    entry_id    bigint NOT NULL REFERENCES entries (entry_id) ON DELETE CASCADE,
    media_id    text NOT NULL,
    PRIMARY KEY (entry_id, media_id)
);

-- The entries linking to an image: who may see it.
CREATE INDEX entry_media_by_media ON entry_media (media_id, entry_id);

-- An idempotency key may now have created an image.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_resource_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_resource_check CHECK (resource IN ('entry', 'diary', 'media'));
