-- +goose Up
-- The claim takes the first ready capture in the order background,
-- available_at, id among those queued. This index holds the queue in exactly
-- that order, so SQLite reads its first matching row instead of sorting the
-- whole queue; it also serves every other lookup by status, so it replaces
-- captures_queue.
DROP INDEX captures_queue;
CREATE INDEX captures_claim ON captures (status, background, available_at, id);

-- +goose Down
DROP INDEX captures_claim;
CREATE INDEX captures_queue ON captures (status, available_at);
