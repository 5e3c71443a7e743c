-- +goose Up
-- A capture is ready only when no other capture of its user is processing.
-- This index holds the few captures in processing by user, so the claim
-- answers that question with one lookup, instead of reading every capture
-- of the user through the list index.
CREATE INDEX captures_processing ON captures (user_id) WHERE status = 'processing';

-- +goose Down
DROP INDEX captures_processing;
