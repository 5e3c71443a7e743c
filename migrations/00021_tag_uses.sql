-- +goose Up
-- The extract step offers a user's names most used first. Counting each
-- tag's situations read every situation of the journal for every entry
-- analysed; this table keeps the numbers instead, and triggers keep them
-- right in the same transaction as every situation's tags written or
-- removed, whichever path does it (a run, a delete, a restore).
CREATE TABLE tag_uses (
    tag_id TEXT PRIMARY KEY REFERENCES tags (id) ON DELETE CASCADE,
    uses   INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO tag_uses (tag_id, uses)
    SELECT tag_id, count(*) FROM segment_tags GROUP BY tag_id;

-- +goose StatementBegin
CREATE TRIGGER tag_uses_insert AFTER INSERT ON segment_tags BEGIN
    INSERT INTO tag_uses (tag_id, uses) VALUES (NEW.tag_id, 1)
        ON CONFLICT (tag_id) DO UPDATE SET uses = uses + 1;
END;
-- +goose StatementEnd

-- A plain update: when the tag goes, its row may be gone first, and an
-- upsert would make it again.
-- +goose StatementBegin
CREATE TRIGGER tag_uses_delete AFTER DELETE ON segment_tags BEGIN
    UPDATE tag_uses SET uses = uses - 1 WHERE tag_id = OLD.tag_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER tag_uses_delete;
DROP TRIGGER tag_uses_insert;
DROP TABLE tag_uses;
