-- +goose Up
-- Browser sessions know whose they are, so a person can list their signed-in
-- browsers and sign one out. The session store copies these columns out of
-- the scs session each time it is saved: id is a stable id that is not the
-- cookie's token (the token is the secret); user_id is set once the session
-- is signed in; user_agent (at most 255 characters) and ip are those of its
-- last use. Sessions saved before this migration get their columns at their
-- next save; until then they are not listed.
ALTER TABLE sessions ADD COLUMN id TEXT;
ALTER TABLE sessions ADD COLUMN user_id TEXT REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE sessions ADD COLUMN created_at TEXT;
ALTER TABLE sessions ADD COLUMN last_seen_at TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX sessions_id ON sessions (id);
CREATE INDEX sessions_user ON sessions (user_id, expiry);

-- +goose Down
-- A column that takes part in a foreign key cannot be dropped: the table is
-- made again as it was, keeping the sessions.
CREATE TABLE sessions_before (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry TEXT NOT NULL
);
INSERT INTO sessions_before (token, data, expiry) SELECT token, data, expiry FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_before RENAME TO sessions;
CREATE INDEX sessions_expiry ON sessions (expiry);
