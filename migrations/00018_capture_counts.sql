-- +goose Up
-- Lists give the number of a user's captures on every page. Counting them
-- reads the user's whole index, which grows with the journal; this table
-- keeps the number instead, and triggers keep it right in the same
-- transaction as every insert and delete, whichever path makes or removes
-- the capture (writing, importing, restoring, deleting, an account's end).
CREATE TABLE capture_counts (
    user_id  TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    captures INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO capture_counts (user_id, captures)
    SELECT user_id, count(*) FROM captures GROUP BY user_id;

-- +goose StatementBegin
CREATE TRIGGER capture_counts_insert AFTER INSERT ON captures BEGIN
    INSERT INTO capture_counts (user_id, captures) VALUES (NEW.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET captures = captures + 1;
END;
-- +goose StatementEnd

-- A plain update: when the user goes, their row may be gone first, and an
-- upsert would make it again.
-- +goose StatementBegin
CREATE TRIGGER capture_counts_delete AFTER DELETE ON captures BEGIN
    UPDATE capture_counts SET captures = captures - 1 WHERE user_id = OLD.user_id;
END;
-- +goose StatementEnd

-- The list's order is occurred_at, then id, both newest first. With id in
-- the index, SQLite reads a page in order and skips earlier pages within
-- the index, instead of sorting every row the page and the ones before it
-- hold. It serves every lookup the index it replaces served.
DROP INDEX captures_user_occurred;
CREATE INDEX captures_user_list ON captures (user_id, occurred_at DESC, id DESC);

-- +goose Down
DROP INDEX captures_user_list;
CREATE INDEX captures_user_occurred ON captures (user_id, occurred_at DESC);
DROP TRIGGER capture_counts_delete;
DROP TRIGGER capture_counts_insert;
DROP TABLE capture_counts;
