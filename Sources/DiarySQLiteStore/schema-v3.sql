-- The Diary database, version 3: terms of one or two characters on an index.
--
-- Applied by SQLiteDiaryStore's migration "v3" after "v2" (schema-v2.sql). The trigram
-- indexes cannot hold a term shorter than three characters, so such a term was found by
-- reading every entry. `entries_grams` holds each entry's distinct characters and pairs of
-- neighbouring characters (the `diary_grams` tokenizer, CharacterGramTokenizer.swift, which
-- every connection registers), over the text the scan read: title, a space, body.
--
-- One index for every entry, whatever its visibility: it never ranks (nothing is scored by
-- it), so no statistic of it is ever shown, and the list's own conditions say who sees what.
-- `content = ''` and `detail = none`, `columnsize = 0`: it keeps which entries hold a token,
-- nothing else (the entries table has the text), which is all a one-token term needs.
CREATE VIRTUAL TABLE entries_grams USING fts5(
    text, content = '', detail = none, columnsize = 0, tokenize = 'diary_grams'
);

INSERT INTO entries_grams (rowid, text) SELECT entry_id, title || ' ' || body FROM entries;

-- A contentless index forgets an entry only when given the text it indexed: the triggers
-- hand it the old title and body.
CREATE TRIGGER entries_grams_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_grams (rowid, text) VALUES (NEW.entry_id, NEW.title || ' ' || NEW.body);
END;

CREATE TRIGGER entries_grams_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_grams (entries_grams, rowid, text) VALUES ('delete', OLD.entry_id, OLD.title || ' ' || OLD.body);
END;

CREATE TRIGGER entries_grams_update AFTER UPDATE OF title, body ON entries BEGIN
    INSERT INTO entries_grams (entries_grams, rowid, text) VALUES ('delete', OLD.entry_id, OLD.title || ' ' || OLD.body);
    INSERT INTO entries_grams (rowid, text) VALUES (NEW.entry_id, NEW.title || ' ' || NEW.body);
END;
