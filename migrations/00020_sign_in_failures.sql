-- +goose Up
-- Guessing is bounded per account, whatever address it comes from: wrong
-- passwords and wrong second factors are counted per user and factor in a
-- window; too many lock that factor until locked_until. mailed_at is when
-- the account was last told of a lock. recur user unlock deletes the rows.
CREATE TABLE sign_in_failures (
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    factor       TEXT NOT NULL CHECK (factor IN ('password', 'two_factor')),
    failures     INTEGER NOT NULL,
    window_start TEXT NOT NULL,
    locked_until TEXT,
    mailed_at    TEXT,
    PRIMARY KEY (user_id, factor)
) WITHOUT ROWID;

-- The time step (Unix seconds / 30) of the last authenticator code that
-- was used, so that a code works once.
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE users DROP COLUMN totp_last_step;
DROP TABLE sign_in_failures;
