-- +goose Up
-- A browser's Web Push subscription made while signed in ends with that
-- browser session: signing out of a shared computer, being signed out by a
-- password change elsewhere, or the session running out stops the
-- device's notifications, as it stops its pages. The session is named by
-- its public id, not its token. A subscription made with a bearer token
-- has no row here and lasts until it is deleted.
CREATE TABLE push_sessions (
    channel_id TEXT PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL
);
CREATE INDEX push_sessions_session ON push_sessions (session_id);

-- +goose StatementBegin
CREATE TRIGGER sessions_end_push AFTER DELETE ON sessions WHEN OLD.id IS NOT NULL BEGIN
    DELETE FROM channels WHERE id IN (SELECT channel_id FROM push_sessions WHERE session_id = OLD.id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER sessions_end_push;
DROP TABLE push_sessions;
