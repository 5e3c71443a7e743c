-- +goose Up
-- Full-text search over captures: the original and the translated text.
-- The index keeps no copy of the text (external content, read back from
-- captures by rowid); triggers keep it in step with every insert, delete
-- and change of either text. Status changes touch neither text, so they
-- leave the index alone. unicode61 without diacritics lets "cafe" find
-- "café".
CREATE VIRTUAL TABLE captures_search USING fts5(
    original, translated,
    content = 'captures', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
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

-- The captures written before this migration.
INSERT INTO captures_search (captures_search) VALUES ('rebuild');

-- +goose Down
DROP TRIGGER captures_search_update;
DROP TRIGGER captures_search_delete;
DROP TRIGGER captures_search_insert;
DROP TABLE captures_search;
