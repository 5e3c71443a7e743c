-- +goose Up
-- A webhook is a URL a user registered to be told of events in their
-- journal. events is the event types it wants, separated by spaces; secret
-- signs each delivery (Recur-Signature) and is shown to the user once.
CREATE TABLE webhooks (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX webhooks_user ON webhooks (user_id, created_at);

-- The outbox: one row per event and webhook, written when the event
-- happens and worked off by the delivery worker, so a restart loses none. state is pending until it is delivered or gives up
-- (failed); dropped rows went over the user's limit and were never sent.
-- Rows go with their webhook.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
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
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_user ON webhook_deliveries (user_id, created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
