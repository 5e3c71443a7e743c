-- +goose Up
-- Search finds word forms in the languages other than English that the
-- journal holds: stems holds the original text's words cut to their stems
-- by the Snowball stemmer of the entry's language (Spanish "salté" and
-- "saltando" both give "salt"), and the index reads it as a third column.
-- The search cuts its words the same way. stems is '' for English (the
-- index's Porter stemmer knows it), for a language without a stemmer and
-- before the language is known; NULL means not cut yet: the store fills
-- those after migrating, since SQL has no stemmer. Entries analysed before
-- this migration are marked so.
DROP TRIGGER captures_search_update;
DROP TRIGGER captures_search_delete;
DROP TRIGGER captures_search_insert;
DROP TABLE captures_search;

ALTER TABLE captures ADD COLUMN stems TEXT DEFAULT '';
UPDATE captures SET stems = NULL WHERE language NOT IN ('', 'en');
-- The store finds the entries to cut through this.
CREATE INDEX captures_unstemmed ON captures (id) WHERE stems IS NULL;
-- Which stemmed languages a journal holds: one look-up per language.
CREATE INDEX captures_stemmed ON captures (user_id, language) WHERE stems != '';

-- A list filtered by feelings reads the user's tags of those feelings,
-- whatever their valence's tag type, through this.
CREATE INDEX tags_feeling ON tags (user_id, feeling_id) WHERE feeling_id IS NOT NULL;

CREATE VIRTUAL TABLE captures_search USING fts5(
    original, translated, stems,
    content = 'captures', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER captures_search_insert AFTER INSERT ON captures BEGIN
    INSERT INTO captures_search (rowid, original, translated, stems) VALUES (new.rowid, new.original, new.translated, new.stems);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER captures_search_delete AFTER DELETE ON captures BEGIN
    INSERT INTO captures_search (captures_search, rowid, original, translated, stems) VALUES ('delete', old.rowid, old.original, old.translated, old.stems);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER captures_search_update AFTER UPDATE OF original, translated, stems ON captures BEGIN
    INSERT INTO captures_search (captures_search, rowid, original, translated, stems) VALUES ('delete', old.rowid, old.original, old.translated, old.stems);
    INSERT INTO captures_search (rowid, original, translated, stems) VALUES (new.rowid, new.original, new.translated, new.stems);
END;
-- +goose StatementEnd

INSERT INTO captures_search (captures_search) VALUES ('rebuild');

-- +goose Down
DROP TRIGGER captures_search_update;
DROP TRIGGER captures_search_delete;
DROP TRIGGER captures_search_insert;
DROP TABLE captures_search;
DROP INDEX tags_feeling;
DROP INDEX captures_stemmed;
DROP INDEX captures_unstemmed;
ALTER TABLE captures DROP COLUMN stems;

CREATE VIRTUAL TABLE captures_search USING fts5(
    original, translated,
    content = 'captures', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER captures_search_insert AFTER INSERT ON captures BEGIN
    INSERT INTO captures_search (rowid, original, translated) VALUES (new.rowid, new.original, new.translated);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER captures_search_delete AFTER DELETE ON captures BEGIN
    INSERT INTO captures_search (captures_search, rowid, original, translated) VALUES ('delete', old.rowid, old.original, old.translated);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER captures_search_update AFTER UPDATE OF original, translated ON captures BEGIN
    INSERT INTO captures_search (captures_search, rowid, original, translated) VALUES ('delete', old.rowid, old.original, old.translated);
    INSERT INTO captures_search (rowid, original, translated) VALUES (new.rowid, new.original, new.translated);
END;
-- +goose StatementEnd

INSERT INTO captures_search (captures_search) VALUES ('rebuild');
