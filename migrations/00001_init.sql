-- +goose Up
-- Times are UTC text with six fractional digits and a trailing Z, so they
-- sort as text and read the same in the database as in the API.

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    email             TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name              TEXT NOT NULL DEFAULT '',
    password_hash     TEXT,
    email_verified_at TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);

CREATE TABLE personal_access_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    -- hex SHA-256 of the secret half of the token; the secret itself is never stored
    secret_hash  TEXT NOT NULL,
    -- space-separated scope names; "*" grants every scope
    scopes       TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT,
    revoked_at   TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id);

CREATE TABLE settings (
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE feedback (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX feedback_user ON feedback (user_id);

-- +goose Down
DROP TABLE feedback;
DROP TABLE settings;
DROP TABLE personal_access_tokens;
DROP TABLE users;
