-- +goose Up
-- Detection reads every segment of a user's processed captures, capture by
-- capture in position order, for its id and tag ids. This index holds just
-- those columns of the segments that have tags, in that order, so the read
-- does not go to the table (where each segment's text lives) row by row.
CREATE INDEX segments_detection ON segments (capture_id, position, tag_ids, id) WHERE tag_ids != '';

-- +goose Down
DROP INDEX segments_detection;
