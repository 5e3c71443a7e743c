-- +goose Up
-- The extract step keeps a user's names (their tags with categories and
-- use counts, as Store.Tags reads them) in memory between entries and reads
-- again only the tags changed since it last read. These triggers note every
-- such change, in the same transaction as the change, whichever path makes
-- it: a tag made, renamed, given another category or deleted, a category
-- renamed, rejected or taken back, and a tag used more or less often. seq
-- only grows, so a reader knows what came after the last note it read.
-- Read notes are pruned by name_pruned, which says up to where: a reader
-- that read less than that reads every name again.
CREATE TABLE name_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    tag_id  TEXT NOT NULL
);
CREATE INDEX name_changes_user ON name_changes (user_id, seq);

CREATE TABLE name_pruned (
    user_id TEXT PRIMARY KEY,
    seq     INTEGER NOT NULL
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER name_tag_insert AFTER INSERT ON tags BEGIN
    INSERT INTO name_changes (user_id, tag_id) VALUES (NEW.user_id, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER name_tag_update AFTER UPDATE ON tags BEGIN
    INSERT INTO name_changes (user_id, tag_id) VALUES (OLD.user_id, OLD.id), (NEW.user_id, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER name_tag_delete AFTER DELETE ON tags BEGIN
    INSERT INTO name_changes (user_id, tag_id) VALUES (OLD.user_id, OLD.id);
END;
-- +goose StatementEnd
-- A category written again with the same name and state (a new tag joining
-- it by name does that) changes none of its tags. The name is compared by
-- its bytes: a rename may change its case alone.
-- +goose StatementBegin
CREATE TRIGGER name_category_update AFTER UPDATE OF name, kind, rejected_at, user_id ON categories
WHEN OLD.name IS NOT NEW.name COLLATE BINARY OR OLD.kind IS NOT NEW.kind
    OR OLD.rejected_at IS NOT NEW.rejected_at OR OLD.user_id IS NOT NEW.user_id BEGIN
    INSERT INTO name_changes (user_id, tag_id) SELECT user_id, id FROM tags WHERE category_id = NEW.id;
END;
-- +goose StatementEnd
-- Before, while its tags still name it: deleting it clears their category.
-- +goose StatementBegin
CREATE TRIGGER name_category_delete BEFORE DELETE ON categories BEGIN
    INSERT INTO name_changes (user_id, tag_id) SELECT user_id, id FROM tags WHERE category_id = OLD.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER name_uses_insert AFTER INSERT ON tag_uses BEGIN
    INSERT INTO name_changes (user_id, tag_id) SELECT user_id, id FROM tags WHERE id = NEW.tag_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER name_uses_update AFTER UPDATE OF uses ON tag_uses BEGIN
    INSERT INTO name_changes (user_id, tag_id) SELECT user_id, id FROM tags WHERE id = NEW.tag_id;
END;
-- +goose StatementEnd
-- An account's end takes its notes with it: the cascades into its tags
-- have noted them by then.
-- +goose StatementBegin
CREATE TRIGGER name_user_delete AFTER DELETE ON users BEGIN
    DELETE FROM name_changes WHERE user_id = OLD.id;
    DELETE FROM name_pruned WHERE user_id = OLD.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER name_user_delete;
DROP TRIGGER name_uses_update;
DROP TRIGGER name_uses_insert;
DROP TRIGGER name_category_delete;
DROP TRIGGER name_category_update;
DROP TRIGGER name_tag_delete;
DROP TRIGGER name_tag_update;
DROP TRIGGER name_tag_insert;
DROP TABLE name_pruned;
DROP TABLE name_changes;
