-- +goose Up
-- What detection finds: patterns, their correlations and flows, and when
-- each user's nightly run last happened.

CREATE TABLE patterns (
    id                 TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- a pattern is its category's: one each, for ever, so it keeps its id
    category_id        TEXT NOT NULL UNIQUE REFERENCES categories (id) ON DELETE CASCADE,
    sentiment          TEXT NOT NULL CHECK (sentiment IN ('positive', 'negative')),
    impact             TEXT NOT NULL CHECK (impact IN ('low', 'moderate', 'high')),
    urgent             INTEGER NOT NULL DEFAULT 0,
    -- JSON array of up to four feeling ids, most frequent first
    feelings           TEXT NOT NULL DEFAULT '[]',
    description        TEXT NOT NULL DEFAULT '',
    -- the app_locale the description was written in; '' until written
    description_locale TEXT NOT NULL DEFAULT '',
    status             TEXT NOT NULL DEFAULT 'detected' CHECK (status IN ('detected', 'accepted', 'rejected')),
    captures_count     INTEGER NOT NULL DEFAULT 0,
    -- hash of the correlations and flows last written, so an unchanged set
    -- is not rewritten on every run
    links_hash         TEXT NOT NULL DEFAULT '',
    last_detected_at   TEXT NOT NULL,
    closed_at          TEXT,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE INDEX patterns_user ON patterns (user_id, status);

CREATE TABLE correlations (
    id         TEXT PRIMARY KEY,
    pattern_id TEXT NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
    tag_id     TEXT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    amount     INTEGER NOT NULL,
    impact     TEXT NOT NULL CHECK (impact IN ('low', 'moderate', 'high')),
    -- a rejected correlation is kept so that it never comes back
    status     TEXT NOT NULL DEFAULT 'detected' CHECK (status IN ('detected', 'accepted', 'rejected')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (pattern_id, tag_id)
);

CREATE TABLE flows (
    id         TEXT PRIMARY KEY,
    pattern_id TEXT NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
    segment_id TEXT NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
    trigger    TEXT NOT NULL,
    feeling    TEXT NOT NULL,
    behaviour  TEXT NOT NULL,
    UNIQUE (pattern_id, segment_id)
);

-- The local date (in the user's timezone) of the last nightly run.
ALTER TABLE users ADD COLUMN nightly_on TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN nightly_on;
DROP TABLE flows;
DROP TABLE correlations;
DROP TABLE patterns;
