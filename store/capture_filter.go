package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// FilterMaxValues bounds the values of each filter of a list of captures.
const FilterMaxValues = 10

// filterNameMax bounds a person's or a place's name in a filter, in
// characters.
const filterNameMax = 100

// CaptureFilter narrows a list of the user's captures. A capture matches a
// filter when it matches one of the filter's values, and the list holds the
// captures that match every filter given.
type CaptureFilter struct {
	Query    string   // words the text must hold (see SearchCaptures); "" for any text
	Feelings []string // feeling names, from the vocabulary
	Patterns []string // pattern ids; an unknown one or another user's matches nothing
	Persons  []string // names of persons, in any case
	Places   []string // names of locations, in any case
	// From and To bound occurred_at: from From on, before To; zero leaves
	// that end open.
	From, To time.Time
}

// tagged reports whether f names tags or patterns.
func (f *CaptureFilter) tagged() bool {
	return len(f.Feelings)+len(f.Patterns)+len(f.Persons)+len(f.Places) > 0
}

// filtered reports whether f narrows the list other than by its words.
func (f *CaptureFilter) filtered() bool {
	return f.tagged() || !f.From.IsZero() || !f.To.IsZero()
}

// Validate tidies f (values trimmed, blank ones and repeats dropped,
// feeling names in lower case) and checks its bounds. It returns EINVALID
// naming "feeling", "pattern", "person" or "place" for more than
// FilterMaxValues values, a pattern id that is not a UUID or a name too
// long, and naming "to" when To is not after From.
func (f *CaptureFilter) Validate() error {
	lists := []struct {
		field  string
		values *[]string
	}{{"feeling", &f.Feelings}, {"pattern", &f.Patterns}, {"person", &f.Persons}, {"place", &f.Places}}
	for _, l := range lists {
		var kept []string
		for _, v := range *l.values {
			v = strings.TrimSpace(v)
			if l.field == "feeling" {
				v = strings.ToLower(v)
			}
			if v == "" || slices.ContainsFunc(kept, func(k string) bool { return strings.EqualFold(k, v) }) {
				continue
			}
			if err := checkFilterValue(l.field, v); err != nil {
				return err
			}
			kept = append(kept, v)
		}
		if len(kept) > FilterMaxValues {
			return Invalid(l.field, "The %s may be given at most %d times; it is given %d times.", l.field, FilterMaxValues, len(kept))
		}
		*l.values = kept
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return Invalid("to", "The to must be a date on or after from.")
	}
	return nil
}

func checkFilterValue(field, v string) error {
	switch field {
	case "pattern":
		if _, err := uuid.Parse(v); err != nil {
			return Invalid(field, "The pattern must be a pattern's id, a UUID; “%s” is not one.", v)
		}
	case "person", "place":
		if !utf8.ValidString(v) || utf8.RuneCountInString(v) > filterNameMax {
			return Invalid(field, "The %s must be a name of at most %d characters.", field, filterNameMax)
		}
	}
	return nil
}

// filterSQL is the condition f puts on the captures c of a user, to add to
// a WHERE clause, and its arguments. Each filter of tags reads the few
// tags it names by index and the captures they were found in, never the
// user's every capture.
func (f *CaptureFilter) filterSQL(userID string) (string, []any) {
	var b strings.Builder
	var args []any
	if !f.From.IsZero() {
		b.WriteString(` AND c.occurred_at >= ?`)
		args = append(args, FormatTime(f.From))
	}
	if !f.To.IsZero() {
		b.WriteString(` AND c.occurred_at < ?`)
		args = append(args, FormatTime(f.To))
	}
	const found = ` JOIN segment_tags st ON st.tag_id = t.id JOIN segments sg ON sg.id = st.segment_id WHERE `
	in := func(from, cond string, values []string) {
		if len(values) == 0 {
			return
		}
		b.WriteString(` AND c.id IN (SELECT sg.capture_id FROM ` + from + found + cond + ` IN (` + marks(len(values)) + `))`)
		args = append(args, userID)
		for _, v := range values {
			args = append(args, v)
		}
	}
	in(`tags t`, `t.user_id = ? AND t.feeling_id IS NOT NULL AND t.feeling_id`, f.Feelings)
	in(`patterns p JOIN tags t ON t.category_id = p.category_id`, `p.user_id = ? AND p.id`, f.Patterns)
	in(`tags t`, `t.user_id = ? AND t.type = 'person' AND t.name`, f.Persons)
	in(`tags t`, `t.user_id = ? AND t.type = 'location' AND t.name`, f.Places)
	return b.String(), args
}

// marks is n comma-separated placeholders.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// checkFeelings returns EINVALID naming "feeling" for a name that is not
// in the vocabulary.
func checkFeelings(ctx context.Context, tx *sql.Tx, names []string) error {
	for _, name := range names {
		var known bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM feelings WHERE id = ?)`, name).Scan(&known); err != nil {
			return err
		}
		if !known {
			return Invalid("feeling", "The feeling %q is not one of Recur's feelings, such as anxious, calm or tired.", name)
		}
	}
	return nil
}

// FindCaptures returns a page of the user's captures that f lets through,
// and how many it lets through in all: with words, best match first, each
// with a snippet (see SearchCaptures, whose errors it returns too);
// without, newest occurred_at first. It returns EINVALID as
// CaptureFilter.Validate does, and naming "feeling" for a feeling that is
// not in the vocabulary.
func (s *Store) FindCaptures(ctx context.Context, userID string, f CaptureFilter, p Page) ([]CaptureMatch, int, error) {
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	if strings.TrimSpace(f.Query) != "" {
		return s.searchCaptures(ctx, userID, f, p)
	}
	var list []CaptureMatch
	var total int
	err := s.view(ctx, func(tx *sql.Tx) error {
		if err := checkFeelings(ctx, tx, f.Feelings); err != nil {
			return err
		}
		found, n, err := listPage(ctx, tx, f.list(userID), p, scanCapture)
		for _, c := range found {
			list = append(list, CaptureMatch{Capture: c})
		}
		total = n
		return err
	})
	return list, total, err
}

// list is the list of the user's captures that f's filters let through,
// newest occurred_at first.
func (f *CaptureFilter) list(userID string) listQuery {
	if !f.filtered() {
		return captureList(userID)
	}
	cond, args := f.filterSQL(userID)
	owner := `c.user_id = ?`
	if f.tagged() {
		// The unary + keeps SQLite from reading the user's captures in
		// order through captures_user_list and probing each: it reads the
		// captures the named tags were found in instead, and sorts those,
		// so the cost follows the matches, not the journal.
		owner = `+c.user_id = ?`
	}
	return listQuery{columns: prefixed("c.", captureColumns), from: `FROM captures c WHERE ` + owner + cond,
		args: append([]any{userID}, args...), order: `c.occurred_at DESC, c.id DESC`}
}
