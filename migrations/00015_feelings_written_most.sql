-- +goose Up
-- Feelings people write most that the first vocabulary lacked. The valence
-- column knows only pleasant and unpleasant, so a mixed feeling goes where it
-- leans: nostalgic with the fond memory (pleasant), bittersweet with the loss
-- (unpleasant). "angry at myself" is anger turned on oneself, apart from
-- angry (at someone else) and guilty (about what one did to someone).
-- Words outside the vocabulary are mapped by the pipeline's synonym table.
INSERT INTO feelings (id, name, valence, energy) VALUES
    ('happy', 'happy', 1, 'high'),
    ('determined', 'determined', 1, 'high'),
    ('nostalgic', 'nostalgic', 1, 'low'),
    ('wary', 'wary', -1, 'high'),
    ('angry at myself', 'angry at myself', -1, 'high'),
    ('bittersweet', 'bittersweet', -1, 'low');

-- +goose Down
-- Each added feeling gives way to the nearest older one of the same valence,
-- so tags, flows and patterns that name it keep a feeling the older
-- vocabulary has.
CREATE TEMP TABLE feelings_down (new TEXT PRIMARY KEY, old TEXT NOT NULL);
INSERT INTO feelings_down (new, old) VALUES
    ('happy', 'cheerful'),
    ('determined', 'motivated'),
    ('nostalgic', 'content'),
    ('wary', 'worried'),
    ('angry at myself', 'angry'),
    ('bittersweet', 'sad');

-- Tags of an added feeling whose user also has a tag of the older one merge
-- into it: their links move over, and each segment's copy of its tag ids
-- (segments.tag_ids, in link order) is written again.
CREATE TEMP TABLE feelings_merged (tag_id TEXT PRIMARY KEY, into_id TEXT NOT NULL);
INSERT INTO feelings_merged (tag_id, into_id)
SELECT t.id, old.id FROM tags t
JOIN feelings_down m ON m.new = t.feeling_id
JOIN tags old ON old.user_id = t.user_id AND old.type = t.type AND old.feeling_id = m.old;

INSERT OR IGNORE INTO segment_tags (segment_id, tag_id, position)
SELECT st.segment_id, fm.into_id, st.position
FROM segment_tags st JOIN feelings_merged fm ON fm.tag_id = st.tag_id;

UPDATE segments SET tag_ids = coalesce((
    SELECT group_concat(tag_id, ',') FROM (
        SELECT tag_id FROM segment_tags
        WHERE segment_id = segments.id AND tag_id NOT IN (SELECT tag_id FROM feelings_merged)
        ORDER BY position)), '')
WHERE id IN (SELECT st.segment_id FROM segment_tags st JOIN feelings_merged fm ON fm.tag_id = st.tag_id);

DELETE FROM segment_tags WHERE tag_id IN (SELECT tag_id FROM feelings_merged);
DELETE FROM tags WHERE id IN (SELECT tag_id FROM feelings_merged);
DROP TABLE feelings_merged;

-- The others are renamed.
UPDATE tags SET
    name = (SELECT old FROM feelings_down WHERE new = tags.feeling_id),
    feeling_id = (SELECT old FROM feelings_down WHERE new = tags.feeling_id)
WHERE feeling_id IN (SELECT new FROM feelings_down);

UPDATE flows SET feeling = (SELECT old FROM feelings_down WHERE new = flows.feeling)
WHERE feeling IN (SELECT new FROM feelings_down);

-- A pattern's feelings keep their order; a feeling named twice after the
-- mapping is kept once, where it first stood.
UPDATE patterns SET feelings = (
    SELECT json_group_array(id) FROM (
        SELECT coalesce(m.old, j.value) AS id, min(j.key) AS k
        FROM json_each(patterns.feelings) j LEFT JOIN feelings_down m ON m.new = j.value
        GROUP BY 1 ORDER BY k))
WHERE EXISTS (SELECT 1 FROM json_each(patterns.feelings) j JOIN feelings_down m ON m.new = j.value);

DELETE FROM feelings WHERE id IN (SELECT new FROM feelings_down);
DROP TABLE feelings_down;
