-- +goose Up
-- What a user asked to be sent at a time of their own, in their timezone:
-- the daily reminder to write (kind reminder, at HH:MM) and the weekly
-- review's announcement (kind review, at a weekday such as monday). last
-- is the local date (YYYY-MM-DD) or ISO week (YYYY-Www) last dealt with,
-- so each is dealt with once. No row: nothing is sent.
CREATE TABLE schedules (
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('reminder', 'review')),
    at         TEXT NOT NULL,
    last       TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_id, kind)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE schedules;
