package store

import (
	"context"
	"strings"
)

// CategoryValences returns the valence of each of the user's categories
// given: 1 when every feeling found in the situations of its tags is
// pleasant, -1 when every one is unpleasant. A category whose situations
// had mixed feelings or none is left out (valence 0), as are ids that are
// not the user's.
func (s *Store) CategoryValences(ctx context.Context, userID string, ids []string) (map[string]int, error) {
	out := map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, userID)
	for _, id := range ids {
		args = append(args, id)
	}
	// The pairs are counted as situations are written (category_valences),
	// not read from the journal here.
	rows, err := s.read.QueryContext(ctx, `SELECT v.category_id, v.pleasant, v.unpleasant
		FROM category_valences v JOIN categories c ON c.id = v.category_id
		WHERE c.user_id = ? AND v.category_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var pleasant, unpleasant int
		if err := rows.Scan(&id, &pleasant, &unpleasant); err != nil {
			return nil, err
		}
		switch {
		case pleasant > 0 && unpleasant == 0:
			out[id] = 1
		case unpleasant > 0 && pleasant == 0:
			out[id] = -1
		}
	}
	return out, rows.Err()
}
