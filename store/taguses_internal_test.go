package store

import "context"

// WrongTagUses names the tags whose number of uses kept in tag_uses is not
// the number of their situations.
func (s *Store) WrongTagUses(ctx context.Context) ([]string, error) {
	return s.names(ctx, `SELECT t.name FROM tags t LEFT JOIN tag_uses u ON u.tag_id = t.id
		WHERE coalesce(u.uses, 0) != (SELECT count(*) FROM segment_tags st WHERE st.tag_id = t.id)`)
}

// WrongCategoryValences names the categories whose pairs of tags and
// feelings kept in category_valences are not those their situations hold.
func (s *Store) WrongCategoryValences(ctx context.Context) ([]string, error) {
	return s.names(ctx, `WITH counted AS (SELECT t.category_id, sum(f.valence > 0) AS pleasant, sum(f.valence < 0) AS unpleasant
			FROM tags t
			JOIN segment_tags st ON st.tag_id = t.id
			JOIN segment_tags sf ON sf.segment_id = st.segment_id
			JOIN tags ft ON ft.id = sf.tag_id
			JOIN feelings f ON f.id = ft.feeling_id
			WHERE t.category_id IS NOT NULL GROUP BY t.category_id)
		SELECT c.name FROM categories c LEFT JOIN counted n ON n.category_id = c.id LEFT JOIN category_valences v ON v.category_id = c.id
		WHERE coalesce(n.pleasant, 0) != coalesce(v.pleasant, 0) OR coalesce(n.unpleasant, 0) != coalesce(v.unpleasant, 0)`)
}

// names runs a query of one text column and returns its values.
func (s *Store) names(ctx context.Context, query string) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}
