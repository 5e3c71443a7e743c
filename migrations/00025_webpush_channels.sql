-- +goose NO TRANSACTION
-- +goose Up
-- Channels may also be a browser's Web Push subscription (kind webpush):
-- url is its push service endpoint, token the browser's P-256 key
-- (p256dh) and secret its auth secret, both base64url as the browser gave
-- them; or the user's push tokens, sent to through Firebase Cloud
-- Messaging (kind fcm, with no url). SQLite cannot change a CHECK in place, so the table is made anew;
-- foreign keys are off meanwhile so that dropping the old table does not
-- cascade into channel_deliveries, which refers to channels by name.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE channels_new (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('webhook', 'ntfy', 'mail', 'webpush', 'fcm')),
    url        TEXT NOT NULL,
    token      TEXT NOT NULL DEFAULT '',
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO channels_new SELECT id, user_id, kind, url, token, events, secret, created_at FROM channels;
DROP TABLE channels;
ALTER TABLE channels_new RENAME TO channels;
CREATE INDEX channels_user ON channels (user_id, kind, created_at);
COMMIT;
PRAGMA foreign_keys = ON;

-- +goose Down
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE channels_old (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('webhook', 'ntfy', 'mail')),
    url        TEXT NOT NULL,
    token      TEXT NOT NULL DEFAULT '',
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
DELETE FROM channel_deliveries WHERE channel_id IN (SELECT id FROM channels WHERE kind IN ('webpush', 'fcm'));
INSERT INTO channels_old SELECT * FROM channels WHERE kind NOT IN ('webpush', 'fcm');
DROP TABLE channels;
ALTER TABLE channels_old RENAME TO channels;
CREATE INDEX channels_user ON channels (user_id, kind, created_at);
COMMIT;
PRAGMA foreign_keys = ON;
