package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"time"
)

// DetectedLoop is a detected pattern's place in a loop: the patterns that
// rest on mostly the same situations, and the pattern that leads the loop
// they make. It is the zero value for a pattern in no loop.
type DetectedLoop struct {
	Lead    string // the category of the loop's lead
	Related []DetectedLink
}

// DetectedLink ties a detected pattern to another, named by its category
// (a new pattern has no id before it is saved).
type DetectedLink struct {
	CategoryID string
	SharedDays int
}

// RelatedPattern is a pattern linked to another: they rest on mostly the
// same situations, shown on SharedDays days.
type RelatedPattern struct {
	ID         string
	Name       string  // the category's name
	Kind       TagType // the category's kind
	SharedDays int
}

// PatternLoop is a pattern's place in its loop.
type PatternLoop struct {
	LeadID  string           // the pattern that leads the loop; empty in no loop
	Related []RelatedPattern // most shared days first; empty, never nil
}

// link is a stored row of pattern_links.
type link struct {
	pattern, related, lead string
	days                   int
}

// saveLoops rewrites the user's pattern links from a detection run's result,
// unless they are the ones stored already. It runs in the transaction that
// saved the patterns, after them; ids holds the ids of the user's patterns
// that are not rejected, by category, so rejected patterns are linked to
// nothing.
func saveLoops(ctx context.Context, tx *sql.Tx, userID string, result []DetectedPattern, ids map[string]string) error {
	var want []link
	for _, p := range result {
		from, lead := ids[p.CategoryID], ids[p.Loop.Lead]
		for _, l := range p.Loop.Related {
			if to := ids[l.CategoryID]; from != "" && to != "" && lead != "" && from != to {
				want = append(want, link{pattern: from, related: to, lead: lead, days: l.SharedDays})
			}
		}
	}
	have, err := storedLinks(ctx, tx, userID)
	if err != nil {
		return err
	}
	order := func(a, b link) int {
		return cmp.Or(cmp.Compare(a.pattern, b.pattern), cmp.Compare(a.related, b.related))
	}
	slices.SortFunc(want, order)
	slices.SortFunc(have, order)
	if slices.Equal(want, have) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM pattern_links WHERE pattern_id IN (SELECT id FROM patterns WHERE user_id = ?)`, userID); err != nil {
		return err
	}
	for _, l := range want {
		if _, err := tx.ExecContext(ctx, `INSERT INTO pattern_links (pattern_id, related_id, shared_days, lead_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (pattern_id, related_id) DO UPDATE SET shared_days = excluded.shared_days, lead_id = excluded.lead_id`,
			l.pattern, l.related, l.days, l.lead); err != nil {
			return err
		}
	}
	return nil
}

// storedLinks reads the user's pattern links.
func storedLinks(ctx context.Context, q querier, userID string) ([]link, error) {
	rows, err := q.QueryContext(ctx, `SELECT l.pattern_id, l.related_id, l.lead_id, l.shared_days FROM pattern_links l
		JOIN patterns p ON p.id = l.pattern_id WHERE p.user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []link
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.pattern, &l.related, &l.lead, &l.days); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// PatternLoops returns, for each of the user's patterns with the given ids,
// its place in its loop; every id has an entry, the zero loop when it is in
// none. Another user's patterns are in no loop of this user's, and rejected
// patterns are in none and never related.
func (s *Store) PatternLoops(ctx context.Context, userID string, ids ...string) (map[string]PatternLoop, error) {
	out := make(map[string]PatternLoop, len(ids))
	for _, id := range ids {
		out[id] = PatternLoop{Related: []RelatedPattern{}}
	}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT l.pattern_id, l.lead_id, r.id, c.name, c.kind, l.shared_days
		FROM pattern_links l JOIN patterns p ON p.id = l.pattern_id JOIN patterns r ON r.id = l.related_id
		JOIN categories c ON c.id = r.category_id
		WHERE l.pattern_id IN (SELECT value FROM json_each(?1)) AND p.user_id = ?2 AND r.user_id = ?2
			AND p.status != 'rejected' AND r.status != 'rejected'
		ORDER BY l.pattern_id, l.shared_days DESC, c.name, r.id`, string(list), userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r RelatedPattern
		var lead string
		if err := rows.Scan(&id, &lead, &r.ID, &r.Name, &r.Kind, &r.SharedDays); err != nil {
			return nil, err
		}
		l := out[id]
		l.LeadID = lead
		l.Related = append(l.Related, r)
		out[id] = l
	}
	return out, rows.Err()
}

// Loops returns the user's loops: for each loop's lead, the ids of the
// patterns of the loop, the lead first and the others in the order they
// were made. Rejected patterns are in no loop.
func (s *Store) Loops(ctx context.Context, userID string) (map[string][]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT l.lead_id, p.id FROM pattern_links l
		JOIN patterns p ON p.id = l.pattern_id JOIN patterns lp ON lp.id = l.lead_id
		WHERE p.user_id = ?1 AND lp.user_id = ?1 AND p.status != 'rejected' AND lp.status != 'rejected'
		GROUP BY l.lead_id, p.id ORDER BY l.lead_id, p.id != l.lead_id, p.created_at, p.id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var lead, id string
		if err := rows.Scan(&lead, &id); err != nil {
			return nil, err
		}
		out[lead] = append(out[lead], id)
	}
	return out, rows.Err()
}

// LoopDays returns, in loc, the local dates on which any of the user's
// patterns with the given ids showed up (as PatternDays counts them): the
// days of a loop told whole, not only of its lead. Ids of another user's
// patterns add no day.
func (s *Store) LoopDays(ctx context.Context, userID string, loc *time.Location, ids ...string) (map[string]bool, error) {
	if len(ids) == 0 {
		return map[string]bool{}, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	var days map[string]bool
	err = s.view(ctx, func(tx *sql.Tx) error {
		days, err = localDays(ctx, tx, loc, `SELECT DISTINCT cp.occurred_at FROM captures cp
			JOIN segments sg ON sg.capture_id = cp.id JOIN segment_tags st ON st.segment_id = sg.id JOIN tags t ON t.id = st.tag_id
			JOIN patterns p ON p.category_id = t.category_id
			WHERE p.id IN (SELECT value FROM json_each(?)) AND p.user_id = ? AND cp.user_id = ? AND cp.status != 'failed' AND `+patternSegment,
			string(list), userID, userID)
		return err
	})
	return days, err
}
