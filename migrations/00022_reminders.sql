-- +goose Up
-- A user's daily reminder to write: at daily_at (HH:MM, the user's local
-- time), on every channel that asked for reminders, unless they wrote that
-- day. reminded_on is the local date (YYYY-MM-DD) last dealt with, sent or
-- skipped, so each day is dealt with once. No row: no reminder.
CREATE TABLE reminders (
    user_id     TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    daily_at    TEXT NOT NULL,
    reminded_on TEXT NOT NULL DEFAULT '',
    updated_at  TEXT NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE reminders;
