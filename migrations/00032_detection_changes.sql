-- +goose Up
-- Detection keeps a user's situations in memory between runs and reads
-- again only the captures changed since its last run. These triggers note
-- every change detection reads, in the same transaction as the change,
-- whichever path makes it (analysing, editing, deleting, importing,
-- restoring, an account's end): a capture made, deleted, or changed in its
-- status or time, and a situation made, deleted or given other tags. seq
-- only grows, so a run knows what came after the last one it read. Read
-- notes are pruned by detection_pruned, which says up to where: a reader
-- that read less than that reads everything again.
CREATE TABLE detection_changes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    TEXT NOT NULL,
    capture_id TEXT NOT NULL
);
CREATE INDEX detection_changes_user ON detection_changes (user_id, seq);

CREATE TABLE detection_pruned (
    user_id TEXT PRIMARY KEY,
    seq     INTEGER NOT NULL
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER detection_capture_insert AFTER INSERT ON captures BEGIN
    INSERT INTO detection_changes (user_id, capture_id) VALUES (NEW.user_id, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER detection_capture_update AFTER UPDATE OF status, occurred_at, user_id ON captures BEGIN
    INSERT INTO detection_changes (user_id, capture_id) VALUES (OLD.user_id, OLD.id), (NEW.user_id, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER detection_capture_delete AFTER DELETE ON captures BEGIN
    INSERT INTO detection_changes (user_id, capture_id) VALUES (OLD.user_id, OLD.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER detection_segment_insert AFTER INSERT ON segments BEGIN
    INSERT INTO detection_changes (user_id, capture_id) SELECT user_id, id FROM captures WHERE id = NEW.capture_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER detection_segment_update AFTER UPDATE OF capture_id, tag_ids, id ON segments BEGIN
    INSERT INTO detection_changes (user_id, capture_id)
        SELECT user_id, id FROM captures WHERE id IN (OLD.capture_id, NEW.capture_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER detection_segment_delete AFTER DELETE ON segments BEGIN
    INSERT INTO detection_changes (user_id, capture_id) SELECT user_id, id FROM captures WHERE id = OLD.capture_id;
END;
-- +goose StatementEnd
-- An account's end takes its notes with it: the cascades into its
-- captures and situations have noted them by then.
-- +goose StatementBegin
CREATE TRIGGER detection_user_delete AFTER DELETE ON users BEGIN
    DELETE FROM detection_changes WHERE user_id = OLD.id;
    DELETE FROM detection_pruned WHERE user_id = OLD.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER detection_user_delete;
DROP TRIGGER detection_segment_delete;
DROP TRIGGER detection_segment_update;
DROP TRIGGER detection_segment_insert;
DROP TRIGGER detection_capture_delete;
DROP TRIGGER detection_capture_update;
DROP TRIGGER detection_capture_insert;
DROP TABLE detection_pruned;
DROP TABLE detection_changes;
