-- +goose Up
-- Addresses are kept in one form (trimmed, lower-case, Unicode NFC: see
-- store.NormaliseEmail), the one used for lookups and limits. Rows written
-- before were trimmed already; this lower-cases the ASCII letters of any
-- that were not. The column's NOCASE collation makes two rows that differ
-- only in ASCII case impossible, so this cannot collide. SQLite's lower()
-- leaves other letters alone: an address with upper-case letters beyond
-- ASCII is found again once it is typed in its stored form.
-- The comparison is BINARY: under the column's NOCASE it would find nothing.
UPDATE users SET email = lower(trim(email)) WHERE email COLLATE BINARY <> lower(trim(email));

-- +goose Down
-- The original spelling is not kept; nothing to undo.
SELECT 1;
