-- +goose Up
-- Third-party apps, push tokens and job batches (bulk work such as imports).

-- An app is a named token the user made for another program, such as a
-- shortcut that posts entries. Its scopes are its token's.
CREATE TABLE apps (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    token_id   TEXT NOT NULL UNIQUE REFERENCES personal_access_tokens (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX apps_user ON apps (user_id, created_at);

-- Push tokens of the user's devices, only stored: nothing is sent to a push
-- service from here. A token names one app install, so it has one owner.
CREATE TABLE push_tokens (
    token      TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform   TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX push_tokens_user ON push_tokens (user_id);

-- A job batch is bulk work the user started: an import or a re-analysis.
-- Its jobs are capture runs; their counts are derived from batch_jobs.
CREATE TABLE job_batches (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- import or reanalyse
    kind         TEXT NOT NULL,
    name         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    finished_at  TEXT,
    cancelled_at TEXT
);
CREATE INDEX job_batches_user ON job_batches (user_id, created_at);

-- One capture run of a batch. A job is pending until the run of its capture
-- commits (processed) or fails (failed); a capture deleted before its run
-- counts as failed; a cancelled batch's pending jobs become cancelled.
CREATE TABLE batch_jobs (
    batch_id   TEXT NOT NULL REFERENCES job_batches (id) ON DELETE CASCADE,
    capture_id TEXT REFERENCES captures (id) ON DELETE SET NULL,
    position   INTEGER NOT NULL,
    state      TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'processed', 'failed', 'cancelled')),
    PRIMARY KEY (batch_id, position)
) WITHOUT ROWID;
CREATE INDEX batch_jobs_capture ON batch_jobs (capture_id, state);

-- Bulk work (imports, re-analysis) yields to entries written now: the queue
-- takes captures with background 0 first.
ALTER TABLE captures ADD COLUMN background INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE captures DROP COLUMN background;
DROP TABLE batch_jobs;
DROP TABLE job_batches;
DROP TABLE push_tokens;
DROP TABLE apps;
