-- The Diary database, version 8: an index of the words of every entry in front of the trigram
-- indexes (issue 25), as PostgreSQL's schema v9.
--
-- Applied by SQLiteDiaryStore's migration "v8" after "v7". Why: FTS5 finds a term of three
-- or more characters by reading the lists of all its trigrams. A rare word whose trigrams are
-- all common ("zanzibar": "zan" and "bar" are each in 99.98 % of the seeded million entries)
-- read them whole: about 100 ms of CPU for its 986 matches, and bm25 read them twice more.
--
-- How (`TermChunks`, EntryChunks.swift): a chunk is a run of `title || ' ' || body` between
-- spaces, tabs, CRs and LFs, folded as the trigram tokenizer folds into ASCII (A-Z, KELVIN
-- SIGN and LONG S). An all-ASCII term without those four characters is in an entry exactly
-- when it is in one of the entry's chunks.
-- - `entries_chunks`: each entry's distinct chunks holding an ASCII letter or digit (the
--   `diary_chunks` tokenizer, which every connection registers), contentless and without
--   positions, as `entries_grams`: which entries hold a chunk, nothing else.
-- - `entry_vocabulary`: every such chunk, kept by a trigger in the writing transaction and
--   never shrunk, with a trigram index (`entry_vocabulary_fts`). The store looks the chunks
--   holding a term up there (at most 200), then gathers the entries holding one of them.
--   A phrase ("river bridge") is narrowed by the entries holding a chunk ending with its first
--   part and one starting with its last, and each such entry is checked. Only an all-ASCII term
--   is looked up; others are searched as before, and so is a term whose chunks are too many.
--
-- The vocabulary and the index hold every entry's chunks, whatever its visibility: they only
-- narrow, the list's own conditions say who sees what, and nothing of them is ever shown.
CREATE VIRTUAL TABLE entries_chunks USING fts5(
    text, content = '', detail = none, columnsize = 0, tokenize = 'diary_chunks'
);

CREATE TABLE entry_vocabulary (
    chunk_id    INTEGER PRIMARY KEY,
    chunk       TEXT NOT NULL UNIQUE
) STRICT;

CREATE VIRTUAL TABLE entry_vocabulary_fts USING fts5(
    chunk, content = 'entry_vocabulary', content_rowid = 'chunk_id', tokenize = 'trigram'
);

INSERT INTO entries_chunks (rowid, text) SELECT entry_id, title || ' ' || body FROM entries;

INSERT OR IGNORE INTO entry_vocabulary (chunk)
    SELECT chunk.value FROM entries, json_each(diary_chunk_list(title || ' ' || body)) AS chunk;

INSERT INTO entry_vocabulary_fts (entry_vocabulary_fts) VALUES ('rebuild');

-- A contentless index forgets an entry only when given the text it indexed: the triggers
-- hand it the old title and body. A new chunk joins the vocabulary by NOT EXISTS, not INSERT
-- OR IGNORE: a statement's own conflict handling overrides a trigger's, and the replica's upsert
-- of entries (INSERT … ON CONFLICT DO UPDATE) turned IGNORE into a UNIQUE violation for every
-- chunk already known.
CREATE TRIGGER entries_chunks_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_chunks (rowid, text) VALUES (NEW.entry_id, NEW.title || ' ' || NEW.body);
    INSERT INTO entry_vocabulary (chunk) SELECT value FROM json_each(diary_chunk_list(NEW.title || ' ' || NEW.body))
        WHERE NOT EXISTS (SELECT 1 FROM entry_vocabulary WHERE chunk = value);
END;

CREATE TRIGGER entries_chunks_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_chunks (entries_chunks, rowid, text) VALUES ('delete', OLD.entry_id, OLD.title || ' ' || OLD.body);
END;

CREATE TRIGGER entries_chunks_update AFTER UPDATE OF title, body ON entries BEGIN
    INSERT INTO entries_chunks (entries_chunks, rowid, text) VALUES ('delete', OLD.entry_id, OLD.title || ' ' || OLD.body);
    INSERT INTO entries_chunks (rowid, text) VALUES (NEW.entry_id, NEW.title || ' ' || NEW.body);
    INSERT INTO entry_vocabulary (chunk) SELECT value FROM json_each(diary_chunk_list(NEW.title || ' ' || NEW.body))
        WHERE NOT EXISTS (SELECT 1 FROM entry_vocabulary WHERE chunk = value);
END;

-- Only ever added to: this runs for new chunks only.
CREATE TRIGGER entry_vocabulary_insert AFTER INSERT ON entry_vocabulary BEGIN
    INSERT INTO entry_vocabulary_fts (rowid, chunk) VALUES (NEW.chunk_id, NEW.chunk);
END;
