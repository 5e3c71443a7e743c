package store

import (
	"context"
	"database/sql"
	"strings"
	"unicode/utf8"
)

// MaxCategoryName bounds a category's translated name, in characters.
const MaxCategoryName = 120

// CategoryToName is a category whose pattern is shown and which has no
// name yet in a language.
type CategoryToName struct {
	ID   string
	Name string // in English, as analysed
	Kind TagType
}

// CategoriesToName returns the categories the pages show by name that have
// no name in locale, or one of an older English name: those of the user's
// patterns, rejected ones excepted, and of the triggers and behaviours in
// those patterns' loops (the loop figure groups its nodes by category),
// in the order the patterns were found, a pattern's own category first.
func (s *Store) CategoriesToName(ctx context.Context, userID, locale string) ([]CategoryToName, error) {
	rows, err := s.read.QueryContext(ctx, `WITH shown (category_id, found, rank) AS (
			SELECT p.category_id, p.created_at, 0 FROM patterns p WHERE p.user_id = ? AND p.status != 'rejected'
			UNION ALL
			SELECT t.category_id, p.created_at, 1 FROM patterns p JOIN flows f ON f.pattern_id = p.id
				JOIN segment_tags st ON st.segment_id = f.segment_id JOIN tags t ON t.id = st.tag_id
				WHERE p.user_id = ? AND p.status != 'rejected' AND t.category_id IS NOT NULL
				AND ((t.type = 'trigger' AND t.name = f.trigger)
					OR (t.type IN ('good_behaviour', 'bad_behaviour') AND t.name = f.behaviour)))
		SELECT c.id, c.name, c.kind FROM shown JOIN categories c ON c.id = shown.category_id
		LEFT JOIN category_names n ON n.category_id = c.id AND n.locale = ?
		WHERE n.name IS NULL OR n.of != c.name
		GROUP BY c.id ORDER BY min(shown.found), min(shown.rank), c.id`, userID, userID, locale)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CategoryToName
	for rows.Next() {
		var c CategoryToName
		if err := rows.Scan(&c.ID, &c.Name, &c.Kind); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetCategoryName stores the name in locale of the category whose English
// name is of. It returns EINVALID for an empty name or one longer than
// MaxCategoryName.
func (s *Store) SetCategoryName(ctx context.Context, categoryID, locale, of, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxCategoryName {
		return Invalid("name", "A category's name has 1 to %d characters.", MaxCategoryName)
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO category_names (category_id, locale, of, name) VALUES (?, ?, ?, ?)
			ON CONFLICT (category_id, locale) DO UPDATE SET of = excluded.of, name = excluded.name`, categoryID, locale, of, name)
		return err
	})
}

// PatternNames returns, by pattern id, the names in locale of the user's
// patterns that have one for their category's current name.
func (s *Store) PatternNames(ctx context.Context, userID, locale string) (map[string]string, error) {
	return s.namesIn(ctx, `SELECT p.id, n.name FROM patterns p JOIN categories c ON c.id = p.category_id
		JOIN category_names n ON n.category_id = c.id AND n.locale = ? AND n.of = c.name
		WHERE p.user_id = ?`, locale, userID)
}

// CategoryNames maps the English name of each of the user's categories
// that has a name in locale to that name, for the loop figure, which shows
// categories by name.
func (s *Store) CategoryNames(ctx context.Context, userID, locale string) (map[string]string, error) {
	return s.namesIn(ctx, `SELECT c.name, n.name FROM categories c
		JOIN category_names n ON n.category_id = c.id AND n.locale = ? AND n.of = c.name
		WHERE c.user_id = ?`, locale, userID)
}

// namesIn maps the first column of every row of query to its second: what
// is named to its name in a language.
func (s *Store) namesIn(ctx context.Context, query string, args ...any) (map[string]string, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var key, name string
		if err := rows.Scan(&key, &name); err != nil {
			return nil, err
		}
		out[key] = name
	}
	return out, rows.Err()
}
