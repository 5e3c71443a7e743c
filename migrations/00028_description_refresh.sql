-- +goose Up
-- A pattern's description is written again when its loop has grown
-- markedly or come back after closing, at most once a day: description_days
-- is how many days the loop had been seen on when it was written (0 for
-- one written before this column, which takes the count of the next run
-- as it stands), described_at when it was written.
ALTER TABLE patterns ADD COLUMN description_days INTEGER NOT NULL DEFAULT 0;
ALTER TABLE patterns ADD COLUMN described_at TEXT;

-- +goose Down
ALTER TABLE patterns DROP COLUMN described_at;
ALTER TABLE patterns DROP COLUMN description_days;
