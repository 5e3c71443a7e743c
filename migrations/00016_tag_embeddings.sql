-- +goose Up
-- The embedding of each tag's name, so that the extract step can offer the
-- names nearest to an entry without asking the embedding model again. A
-- vector is little-endian float32s, four bytes each: a ten-year journal has
-- thousands of names, and this form is read back without parsing. Kept
-- apart from tags so that exports, which leave embeddings out, are the same.
CREATE TABLE tag_embeddings (
    tag_id    TEXT PRIMARY KEY REFERENCES tags (id) ON DELETE CASCADE,
    embedding BLOB NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE tag_embeddings;
