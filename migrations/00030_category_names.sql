-- +goose Up
-- A category's name in a reader's language: Recur analyses in English, and
-- a pattern is shown by its category's name, so each name is translated
-- once per language the user reads in. of is the English name it
-- translates: a category whose name changed is named again.
CREATE TABLE category_names (
    category_id TEXT NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    locale      TEXT NOT NULL,
    of          TEXT NOT NULL,
    name        TEXT NOT NULL,
    PRIMARY KEY (category_id, locale)
);

-- +goose Down
DROP TABLE category_names;
