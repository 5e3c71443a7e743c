-- +goose Up
-- Captures, what their analysis found, and the vocabulary of feelings.

CREATE TABLE captures (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    original      TEXT NOT NULL,
    translated    TEXT NOT NULL DEFAULT '',
    language      TEXT NOT NULL DEFAULT '',
    origin        TEXT NOT NULL DEFAULT 'text',
    occurred_at   TEXT NOT NULL,
    -- queued, processing, processed or failed; the queue is this column.
    status        TEXT NOT NULL DEFAULT 'queued',
    -- a queued capture is not claimed before this time (backoff)
    available_at  TEXT NOT NULL,
    -- runs that ended in a transient error (timeout, 5xx), reset on success
    attempts      INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX captures_user_occurred ON captures (user_id, occurred_at DESC);
CREATE INDEX captures_queue ON captures (status, available_at);

CREATE TABLE segments (
    id         TEXT PRIMARY KEY,
    capture_id TEXT NOT NULL REFERENCES captures (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    -- byte offsets of the slice in the capture's translated text
    start      INTEGER NOT NULL,
    end        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    -- the ids of the segment's tags in order, comma-separated: a copy of
    -- segment_tags that lets detection read a segment in one row
    tag_ids    TEXT NOT NULL DEFAULT '',
    UNIQUE (capture_id, position)
);

-- The fixed vocabulary of feelings the model picks from, after the mood
-- meter: valence (pleasant +1, unpleasant -1) and energy (high, low).
CREATE TABLE feelings (
    id      TEXT PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    valence INTEGER NOT NULL CHECK (valence IN (-1, 1)),
    energy  TEXT NOT NULL CHECK (energy IN ('high', 'low'))
);

-- A user's categories of triggers, good behaviours and bad behaviours: a
-- category's kind is the type of the tags it groups.
CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('trigger', 'good_behaviour', 'bad_behaviour')),
    name        TEXT NOT NULL COLLATE NOCASE,
    -- JSON array of floats from the embedding model, filled when first needed
    embedding   TEXT,
    -- set when the user rejects the category's pattern: runs leave it alone
    rejected_at TEXT,
    created_at  TEXT NOT NULL,
    UNIQUE (user_id, kind, name)
);

-- A user's tags: a named trigger, feeling, behaviour, person, location or
-- activity. The same name and type is one tag across captures.
CREATE TABLE tags (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type        TEXT NOT NULL CHECK (type IN ('trigger', 'positive_feeling', 'negative_feeling',
                    'good_behaviour', 'bad_behaviour', 'person', 'location', 'activity')),
    name        TEXT NOT NULL COLLATE NOCASE,
    category_id TEXT REFERENCES categories (id) ON DELETE SET NULL,
    feeling_id  TEXT REFERENCES feelings (id),
    created_at  TEXT NOT NULL,
    UNIQUE (user_id, type, name)
);
CREATE INDEX tags_category ON tags (category_id);

CREATE TABLE segment_tags (
    segment_id TEXT NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
    tag_id     TEXT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (segment_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX segment_tags_tag ON segment_tags (tag_id);

-- Every model call made for a capture, for the cost figures.
CREATE TABLE model_calls (
    id            TEXT PRIMARY KEY,
    capture_id    TEXT NOT NULL REFERENCES captures (id) ON DELETE CASCADE,
    step          TEXT NOT NULL,
    model         TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    duration_ms   INTEGER NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX model_calls_capture ON model_calls (capture_id);

-- +goose Down
DROP TABLE model_calls;
DROP TABLE segment_tags;
DROP TABLE tags;
DROP TABLE categories;
DROP TABLE feelings;
DROP TABLE segments;
DROP TABLE captures;
