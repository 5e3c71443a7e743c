-- +goose Up
-- Search finds the forms of a word: the index stems with the Porter
-- stemmer on top of unicode61, so "skipping" finds "skipped". Porter knows
-- English only; every entry has its English translation indexed beside
-- the text as written, so an English search finds the word forms of an
-- entry written in any language, and a search in another language still
-- finds its words as written. The triggers of 00010 keep the index in step
-- with captures by name, so only the table is made again.
DROP TABLE captures_search;
CREATE VIRTUAL TABLE captures_search USING fts5(
    original, translated,
    content = 'captures', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO captures_search (captures_search) VALUES ('rebuild');

-- +goose Down
DROP TABLE captures_search;
CREATE VIRTUAL TABLE captures_search USING fts5(
    original, translated,
    content = 'captures', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO captures_search (captures_search) VALUES ('rebuild');
