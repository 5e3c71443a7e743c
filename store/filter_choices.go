package store

import (
	"context"
	"database/sql"
)

// filterChoicesMax bounds the names of each kind that FilterChoices offers.
const filterChoicesMax = 200

// FilterChoices is what a form that narrows a user's captures offers: the
// feelings, persons and places found in the user's entries and the user's
// listed patterns.
type FilterChoices struct {
	Feelings []Feeling    // by name
	Patterns []PatternRef // by name
	Persons  []string     // the most often found first, up to filterChoicesMax
	Places   []string     // the most often found first, up to filterChoicesMax
}

// FilterChoices returns what the user's entries offer to filter by, read
// through the user's tags (an index) in one snapshot.
func (s *Store) FilterChoices(ctx context.Context, userID string) (FilterChoices, error) {
	var fc FilterChoices
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		fc.Feelings, err = queryAll(ctx, tx, func(row interface{ Scan(...any) error }) (f Feeling, err error) {
			err = row.Scan(&f.ID, &f.Name, &f.Valence, &f.Energy)
			return f, err
		}, `SELECT DISTINCT f.id, f.name, f.valence, f.energy FROM tags t JOIN feelings f ON f.id = t.feeling_id
			WHERE t.user_id = ? AND t.feeling_id IS NOT NULL ORDER BY f.name`, userID)
		if err != nil {
			return err
		}
		fc.Patterns, err = queryAll(ctx, tx, func(row interface{ Scan(...any) error }) (p PatternRef, err error) {
			err = row.Scan(&p.ID, &p.Name, &p.Sentiment, &p.Impact)
			return p, err
		}, `SELECT p.id, c.name, p.sentiment, p.impact FROM patterns p JOIN categories c ON c.id = p.category_id
			WHERE p.user_id = ? AND p.status != 'rejected' ORDER BY c.name, p.id`, userID)
		if err != nil {
			return err
		}
		if fc.Persons, err = tagNames(ctx, tx, userID, TagPerson); err != nil {
			return err
		}
		fc.Places, err = tagNames(ctx, tx, userID, TagLocation)
		return err
	})
	return fc, err
}

// tagNames lists the names of the user's tags of a type found in an entry,
// the most often found first.
func tagNames(ctx context.Context, tx *sql.Tx, userID string, typ TagType) ([]string, error) {
	return queryStrings(ctx, tx, `SELECT t.name FROM tags t JOIN tag_uses u ON u.tag_id = t.id
		WHERE t.user_id = ? AND t.type = ? AND u.uses > 0 ORDER BY u.uses DESC, t.name LIMIT ?`, userID, typ, filterChoicesMax)
}
