package store

import "context"

// FilterPlans returns SQLite's query plans for the page of a list of the
// user's captures through f, and of a search for the word "deadline"
// through f, one line per step.
func (s *Store) FilterPlans(ctx context.Context, userID string, f CaptureFilter) (list, search []string, err error) {
	q := f.list(userID)
	list, err = queryPlan(ctx, s.read, q.page(), append(q.args, 15, 0)...)
	if err != nil {
		return nil, nil, err
	}
	from, args := f.searchFrom(userID, `"deadline"`)
	search, err = queryPlan(ctx, s.read, `SELECT c.id`+from+` ORDER BY bm25(captures_search) LIMIT 15`, args...)
	return list, search, err
}

// LanguagesPlan returns SQLite's query plan for finding which stemmed
// languages the user's journal holds.
func (s *Store) LanguagesPlan(ctx context.Context, userID string) ([]string, error) {
	return queryPlan(ctx, s.read, `SELECT l.column1 FROM (VALUES `+stemLanguages+`) l
		WHERE EXISTS (SELECT 1 FROM captures WHERE user_id = ? AND language = l.column1 AND stems != '')
		ORDER BY l.column1`, userID)
}
