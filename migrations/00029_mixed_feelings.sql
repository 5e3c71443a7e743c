-- +goose NO TRANSACTION
-- +goose Up
-- Feelings get a third valence, mixed (0), beside pleasant (1) and
-- unpleasant (-1): bittersweet and nostalgic were filed where they lean
-- (00015), so a wistful good day counted as an unpleasant one. They are
-- mixed now, with ambivalent, and the tags of a mixed feeling have the type
-- mixed_feeling. SQLite cannot change a CHECK in place, so feelings and
-- tags are made anew, keeping every row and id; foreign keys are off
-- meanwhile so that dropping the old tables does not cascade into what
-- refers to them, and the legacy rename leaves the triggers that name them
-- as they are.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN IMMEDIATE;
CREATE TABLE feelings_new (
    id      TEXT PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    valence INTEGER NOT NULL CHECK (valence IN (-1, 0, 1)),
    energy  TEXT NOT NULL CHECK (energy IN ('high', 'low'))
);
INSERT INTO feelings_new (id, name, valence, energy) SELECT id, name, valence, energy FROM feelings;
DROP TABLE feelings;
ALTER TABLE feelings_new RENAME TO feelings;
UPDATE feelings SET valence = 0 WHERE id IN ('bittersweet', 'nostalgic');
INSERT INTO feelings (id, name, valence, energy) VALUES ('ambivalent', 'ambivalent', 0, 'low');

CREATE TABLE tags_new (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type        TEXT NOT NULL CHECK (type IN ('trigger', 'positive_feeling', 'negative_feeling', 'mixed_feeling',
                    'good_behaviour', 'bad_behaviour', 'person', 'location', 'activity')),
    name        TEXT NOT NULL COLLATE NOCASE,
    category_id TEXT REFERENCES categories (id) ON DELETE SET NULL,
    feeling_id  TEXT REFERENCES feelings (id),
    created_at  TEXT NOT NULL,
    UNIQUE (user_id, type, name)
);
INSERT INTO tags_new (id, user_id, type, name, category_id, feeling_id, created_at)
    SELECT t.id, t.user_id, CASE WHEN f.valence = 0 THEN 'mixed_feeling' ELSE t.type END, t.name, t.category_id, t.feeling_id, t.created_at
    FROM tags t LEFT JOIN feelings f ON f.id = t.feeling_id;
DROP TABLE tags;
ALTER TABLE tags_new RENAME TO tags;
CREATE INDEX tags_category ON tags (category_id);
-- The pairs of categories and pleasant or unpleasant feelings (00022) are
-- counted anew, as the feelings that changed class no longer count.
DELETE FROM category_valences;
INSERT INTO category_valences (category_id, pleasant, unpleasant)
    SELECT t.category_id, sum(f.valence > 0), sum(f.valence < 0)
    FROM tags t
    JOIN segment_tags st ON st.tag_id = t.id
    JOIN segment_tags sf ON sf.segment_id = st.segment_id
    JOIN tags ft ON ft.id = sf.tag_id
    JOIN feelings f ON f.id = ft.feeling_id
    WHERE t.category_id IS NOT NULL
    GROUP BY t.category_id;
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;

-- +goose Down
-- Each mixed feeling goes back where it leaned: nostalgic pleasant,
-- bittersweet unpleasant, and ambivalent, which the older vocabulary
-- lacks, becomes bittersweet (a user's tag of it merges into their
-- bittersweet tag when they have one, as 00015's way down does).
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN IMMEDIATE;
CREATE TEMP TABLE ambivalent_merged (tag_id TEXT PRIMARY KEY, into_id TEXT NOT NULL);
INSERT INTO ambivalent_merged (tag_id, into_id)
SELECT t.id, old.id FROM tags t JOIN tags old ON old.user_id = t.user_id AND old.feeling_id = 'bittersweet'
WHERE t.feeling_id = 'ambivalent';
INSERT OR IGNORE INTO segment_tags (segment_id, tag_id, position)
SELECT st.segment_id, am.into_id, st.position FROM segment_tags st JOIN ambivalent_merged am ON am.tag_id = st.tag_id;
UPDATE segments SET tag_ids = coalesce((
    SELECT group_concat(tag_id, ',') FROM (
        SELECT tag_id FROM segment_tags
        WHERE segment_id = segments.id AND tag_id NOT IN (SELECT tag_id FROM ambivalent_merged)
        ORDER BY position)), '')
WHERE id IN (SELECT st.segment_id FROM segment_tags st JOIN ambivalent_merged am ON am.tag_id = st.tag_id);
DELETE FROM segment_tags WHERE tag_id IN (SELECT tag_id FROM ambivalent_merged);
DELETE FROM tags WHERE id IN (SELECT tag_id FROM ambivalent_merged);
DROP TABLE ambivalent_merged;
UPDATE tags SET name = 'bittersweet', feeling_id = 'bittersweet' WHERE feeling_id = 'ambivalent';
UPDATE flows SET feeling = 'bittersweet' WHERE feeling = 'ambivalent';
UPDATE patterns SET feelings = (
    SELECT json_group_array(id) FROM (
        SELECT CASE j.value WHEN 'ambivalent' THEN 'bittersweet' ELSE j.value END AS id, min(j.key) AS k
        FROM json_each(patterns.feelings) j GROUP BY 1 ORDER BY k))
WHERE EXISTS (SELECT 1 FROM json_each(patterns.feelings) j WHERE j.value = 'ambivalent');

CREATE TABLE tags_old (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type        TEXT NOT NULL CHECK (type IN ('trigger', 'positive_feeling', 'negative_feeling',
                    'good_behaviour', 'bad_behaviour', 'person', 'location', 'activity')),
    name        TEXT NOT NULL COLLATE NOCASE,
    category_id TEXT REFERENCES categories (id) ON DELETE SET NULL,
    feeling_id  TEXT REFERENCES feelings (id),
    created_at  TEXT NOT NULL,
    UNIQUE (user_id, type, name)
);
INSERT INTO tags_old (id, user_id, type, name, category_id, feeling_id, created_at)
    SELECT id, user_id, CASE WHEN type != 'mixed_feeling' THEN type WHEN feeling_id = 'nostalgic' THEN 'positive_feeling' ELSE 'negative_feeling' END,
        name, category_id, feeling_id, created_at
    FROM tags;
DROP TABLE tags;
ALTER TABLE tags_old RENAME TO tags;
CREATE INDEX tags_category ON tags (category_id);

DELETE FROM feelings WHERE id = 'ambivalent';
CREATE TABLE feelings_old (
    id      TEXT PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    valence INTEGER NOT NULL CHECK (valence IN (-1, 1)),
    energy  TEXT NOT NULL CHECK (energy IN ('high', 'low'))
);
INSERT INTO feelings_old (id, name, valence, energy)
    SELECT id, name, CASE WHEN valence != 0 THEN valence WHEN id = 'nostalgic' THEN 1 ELSE -1 END, energy FROM feelings;
DROP TABLE feelings;
ALTER TABLE feelings_old RENAME TO feelings;
DELETE FROM category_valences;
INSERT INTO category_valences (category_id, pleasant, unpleasant)
    SELECT t.category_id, sum(f.valence > 0), sum(f.valence < 0)
    FROM tags t
    JOIN segment_tags st ON st.tag_id = t.id
    JOIN segment_tags sf ON sf.segment_id = st.segment_id
    JOIN tags ft ON ft.id = sf.tag_id
    JOIN feelings f ON f.id = ft.feeling_id
    WHERE t.category_id IS NOT NULL
    GROUP BY t.category_id;
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
