-- +goose Up
-- The categorise step offers existing categories by the valence of the
-- situations their tags came from. Reading that from every situation of
-- each category made every entry analysed read a share of the journal; this
-- table keeps, per category, the number of pairs of one of its tags and a
-- pleasant or an unpleasant feeling in the same situation, and triggers
-- keep it right in the same transaction as every situation's tags written
-- or removed. A tag's category and a feeling's valence never change.
CREATE TABLE category_valences (
    category_id TEXT PRIMARY KEY REFERENCES categories (id) ON DELETE CASCADE,
    pleasant    INTEGER NOT NULL,
    unpleasant  INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO category_valences (category_id, pleasant, unpleasant)
    SELECT t.category_id, sum(f.valence > 0), sum(f.valence < 0)
    FROM tags t
    JOIN segment_tags st ON st.tag_id = t.id
    JOIN segment_tags sf ON sf.segment_id = st.segment_id
    JOIN tags ft ON ft.id = sf.tag_id
    JOIN feelings f ON f.id = ft.feeling_id
    WHERE t.category_id IS NOT NULL
    GROUP BY t.category_id;

-- A pair is counted when the second of its two tags joins the situation:
-- a tag with a category pairs with the feelings there, a feeling with the
-- tags with a category there.
-- +goose StatementBegin
CREATE TRIGGER category_valences_insert AFTER INSERT ON segment_tags BEGIN
    INSERT INTO category_valences (category_id, pleasant, unpleasant)
        SELECT nt.category_id, sum(f.valence > 0), sum(f.valence < 0)
        FROM tags nt
        JOIN segment_tags sf ON sf.segment_id = NEW.segment_id
        JOIN tags ft ON ft.id = sf.tag_id
        JOIN feelings f ON f.id = ft.feeling_id
        WHERE nt.id = NEW.tag_id AND nt.category_id IS NOT NULL
        GROUP BY nt.category_id
        ON CONFLICT (category_id) DO UPDATE SET pleasant = pleasant + excluded.pleasant, unpleasant = unpleasant + excluded.unpleasant;
    INSERT INTO category_valences (category_id, pleasant, unpleasant)
        SELECT ct.category_id, sum(f.valence > 0), sum(f.valence < 0)
        FROM tags nt
        JOIN feelings f ON f.id = nt.feeling_id
        JOIN segment_tags sc ON sc.segment_id = NEW.segment_id
        JOIN tags ct ON ct.id = sc.tag_id
        WHERE nt.id = NEW.tag_id AND ct.category_id IS NOT NULL
        GROUP BY ct.category_id
        ON CONFLICT (category_id) DO UPDATE SET pleasant = pleasant + excluded.pleasant, unpleasant = unpleasant + excluded.unpleasant;
END;
-- +goose StatementEnd

-- Removed, a tag's pairs with the tags left in the situation go; a plain
-- update, so that a row gone with its category is not made again.
-- +goose StatementBegin
CREATE TRIGGER category_valences_delete AFTER DELETE ON segment_tags BEGIN
    UPDATE category_valences SET
        pleasant = pleasant - (SELECT count(*) FROM segment_tags sf JOIN tags ft ON ft.id = sf.tag_id JOIN feelings f ON f.id = ft.feeling_id
            WHERE sf.segment_id = OLD.segment_id AND f.valence > 0),
        unpleasant = unpleasant - (SELECT count(*) FROM segment_tags sf JOIN tags ft ON ft.id = sf.tag_id JOIN feelings f ON f.id = ft.feeling_id
            WHERE sf.segment_id = OLD.segment_id AND f.valence < 0)
        WHERE category_id = (SELECT category_id FROM tags WHERE id = OLD.tag_id);
    UPDATE category_valences SET
        pleasant = pleasant - (SELECT count(*) FROM tags nt JOIN feelings f ON f.id = nt.feeling_id WHERE nt.id = OLD.tag_id AND f.valence > 0)
            * (SELECT count(*) FROM segment_tags sc JOIN tags ct ON ct.id = sc.tag_id
                WHERE sc.segment_id = OLD.segment_id AND ct.category_id = category_valences.category_id),
        unpleasant = unpleasant - (SELECT count(*) FROM tags nt JOIN feelings f ON f.id = nt.feeling_id WHERE nt.id = OLD.tag_id AND f.valence < 0)
            * (SELECT count(*) FROM segment_tags sc JOIN tags ct ON ct.id = sc.tag_id
                WHERE sc.segment_id = OLD.segment_id AND ct.category_id = category_valences.category_id)
        WHERE category_id IN (SELECT ct.category_id FROM segment_tags sc JOIN tags ct ON ct.id = sc.tag_id
            WHERE sc.segment_id = OLD.segment_id AND ct.category_id IS NOT NULL)
        AND EXISTS (SELECT 1 FROM tags nt JOIN feelings f ON f.id = nt.feeling_id WHERE nt.id = OLD.tag_id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER category_valences_delete;
DROP TRIGGER category_valences_insert;
DROP TABLE category_valences;
