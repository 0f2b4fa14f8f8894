-- The Diary database, version 6: named tokens with scopes, and drafts (issue 23).
--
-- Applied by SQLiteDiaryStore's migration "v6". ("v4" and "v5" are other branches' media and
-- change feed; GRDB's named migrations allow the gap.)
--
-- A user's named tokens, besides the main one in `users.token_hash`: each is kept as the
-- SHA-256 of the token (hex), as the main one is. `last_used` is to the minute (the store
-- writes it at most once a minute per token); NULL: never used. Deleting the row revokes the
-- token: every request looks its token up here, nothing keeps it.
CREATE TABLE api_tokens (
    token_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    scope      TEXT NOT NULL CHECK (scope IN ('read', 'write')),
    token_hash TEXT NOT NULL UNIQUE,
    created    TEXT NOT NULL,
    last_used  TEXT
);

CREATE INDEX api_tokens_by_user ON api_tokens (user_id, token_id);

-- Drafts (issue 23): a draft is stored as a private entry, so that every rule, index, trigger
-- and count that keeps a private entry from others keeps a draft from them too (EntryDraft in
-- StoreKernel). `draft_visibility` is the visibility it takes once published; NULL for an entry
-- that is not a draft. Only its owner's answers read it.
ALTER TABLE entries ADD COLUMN draft_visibility TEXT
    CHECK (draft_visibility IS NULL OR (draft_visibility IN ('public', 'unlisted', 'private') AND visibility = 'private'));
