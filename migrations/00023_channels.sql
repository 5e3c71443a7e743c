-- +goose Up
-- A channel a user registered to be told of events in their journal: a
-- webhook (url; secret signs each delivery in Recur-Signature and is shown
-- to the user once), an ntfy topic (url, with token its optional access
-- token) or mail to the account's address (no url). events is the event
-- types it wants, separated by spaces.
CREATE TABLE channels (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('webhook', 'ntfy', 'mail')),
    url        TEXT NOT NULL,
    token      TEXT NOT NULL DEFAULT '',
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX channels_user ON channels (user_id, kind, created_at);

-- The outbox: one row per event and channel, written when the event
-- happens and worked off by the delivery worker, so a restart loses none. state is pending until it is delivered or gives up
-- (failed); dropped rows went over the user's limit and were never sent.
-- Rows go with their channel.
CREATE TABLE channel_deliveries (
    id              TEXT PRIMARY KEY,
    channel_id      TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    response_status INTEGER,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX channel_deliveries_due ON channel_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX channel_deliveries_channel ON channel_deliveries (channel_id, created_at);
CREATE INDEX channel_deliveries_user ON channel_deliveries (user_id, created_at);

-- +goose Down
DROP TABLE channel_deliveries;
DROP TABLE channels;
