-- +goose Up
-- Patterns that rest on mostly the same situations (a trigger and the
-- behaviours that follow it) are linked, and a connected group of them is a
-- loop. Detection rewrites a user's links on every run, in the transaction
-- that saves the patterns. Each link is stored both ways, so a pattern's
-- links are read by pattern_id alone; lead_id is the pattern that leads the
-- loop both belong to.
CREATE TABLE pattern_links (
    pattern_id  TEXT NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
    related_id  TEXT NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
    -- days with a situation both patterns show up in
    shared_days INTEGER NOT NULL CHECK (shared_days > 0),
    lead_id     TEXT NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
    PRIMARY KEY (pattern_id, related_id),
    CHECK (pattern_id != related_id)
) WITHOUT ROWID;
-- The cascades from a deleted pattern find its rows through these.
CREATE INDEX pattern_links_related ON pattern_links (related_id);
CREATE INDEX pattern_links_lead ON pattern_links (lead_id);

-- +goose Down
DROP TABLE pattern_links;
