-- +goose Up
-- Sign-in: browser sessions, mailed codes, two-factor authentication.

-- Browser sessions (scs). data is scs's encoded session.
CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry TEXT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expiry);

-- Codes mailed for sign-in (purpose sign_in) and for confirming a session
-- (purpose confirm). Only an HMAC of the code is kept.
CREATE TABLE mail_codes (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('sign_in', 'confirm')),
    code_hash  TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    expires_at TEXT NOT NULL,
    used_at    TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX mail_codes_user ON mail_codes (user_id, purpose);

-- Two-factor authentication: the TOTP secret, sealed with the instance's
-- key, and when the user proved they hold it (two-factor is on from then).
ALTER TABLE users ADD COLUMN two_factor_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN two_factor_confirmed_at TEXT;

-- One-use recovery codes, kept as HMACs.
CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   TEXT,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE recovery_codes;
ALTER TABLE users DROP COLUMN two_factor_confirmed_at;
ALTER TABLE users DROP COLUMN two_factor_secret;
DROP TABLE mail_codes;
DROP TABLE sessions;
