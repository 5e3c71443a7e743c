package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The bounds of a search, which keep its cost small whatever is typed: the
// full-text index is shared by every journal of the instance, and each word
// reads the whole list of places where it occurs. The README lists them.
const (
	// SearchMaxLength bounds a search, in characters.
	SearchMaxLength = 200
	// SearchMaxWords bounds the different words of a search; a word said
	// again counts once.
	SearchMaxWords = 8
	// SearchPrefixMin is how many letters or digits the last word needs before it
	// also matches as the start of a word: a one-letter prefix would read
	// the places of every word beginning with that letter.
	SearchPrefixMin = 2
	// SearchBudget is how long one search may run before it is stopped.
	SearchBudget = 2 * time.Second
	// SearchWait is how long a search waits for its turn while the
	// searches the instance allows at once are running.
	SearchWait = 2 * time.Second
)

// Snippet marks: SearchCaptures puts SnippetOpen before each match in a
// snippet and SnippetClose after it. Both are control characters that a
// journal's text does not hold in practice; a reader must still expect
// stray ones.
const (
	SnippetOpen  = "\x02"
	SnippetClose = "\x03"
)

// CaptureMatch is a capture a search found, with the part of its text
// that matched.
type CaptureMatch struct {
	Capture
	Snippet string // with SnippetOpen and SnippetClose around each match
}

// searchGate lets each user run one search at a time and the instance a
// few at once (half the reader pool), so searches never hold every reader
// nor every core that other requests need.
type searchGate struct {
	slots  chan struct{}
	budget time.Duration // SearchBudget; tests shorten it
	wait   time.Duration // SearchWait; tests shorten it
	mu     sync.Mutex
	users  map[string]bool // users with a search under way
}

func newSearchGate(readers int) *searchGate {
	return &searchGate{slots: make(chan struct{}, max(1, readers/2)), budget: SearchBudget, wait: SearchWait, users: map[string]bool{}}
}

// enter takes the user's turn and a slot. It returns ETOOMANY when the user
// has a search under way or no slot frees within the wait, and the
// context's error when ctx ends first; after a nil error, call leave.
func (g *searchGate) enter(ctx context.Context, userID string) error {
	g.mu.Lock()
	busy := g.users[userID]
	g.users[userID] = true
	g.mu.Unlock()
	if busy {
		return Errorf(ETOOMANY, "Another search of yours is still running; try again when it has answered.")
	}
	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-timer.C:
		g.release(userID)
		return Errorf(ETOOMANY, "Recur is busy with other searches; try again in a moment.")
	case <-ctx.Done():
		g.release(userID)
		return ctx.Err()
	}
}

// leave gives back what enter took.
func (g *searchGate) leave(userID string) {
	<-g.slots
	g.release(userID)
}

func (g *searchGate) release(userID string) {
	g.mu.Lock()
	delete(g.users, userID)
	g.mu.Unlock()
}

// SearchCaptures returns a page of the user's captures whose original or
// translated text holds every word of query, best matches first (bm25),
// and how many match in all. Each word is taken as it is, never as search
// syntax; the last one also matches as the start of a word, as a search
// typed so far would. It returns EINVALID naming "q" for a query that is
// empty, longer than SearchMaxLength characters, holds more than
// SearchMaxWords different words or a control character, or runs longer
// than SearchBudget; and ETOOMANY while the user's previous search runs
// or the instance's searches stay busy for SearchWait.
func (s *Store) SearchCaptures(ctx context.Context, userID, query string, p Page) ([]CaptureMatch, int, error) {
	match, err := matchExpression(query)
	if err != nil {
		return nil, 0, err
	}
	if err := s.searches.enter(ctx, userID); err != nil {
		return nil, 0, err
	}
	defer s.searches.leave(userID)
	budget, cancel := context.WithTimeout(ctx, s.searches.budget)
	defer cancel()
	list, total, err := s.search(budget, userID, match, p)
	if err != nil && ctx.Err() == nil && budget.Err() != nil {
		return nil, 0, Invalid("q", "This search takes too long; search for fewer or longer words.")
	}
	return list, total, err
}

func (s *Store) search(ctx context.Context, userID, match string, p Page) ([]CaptureMatch, int, error) {
	var list []CaptureMatch
	var total int
	err := s.view(ctx, func(tx *sql.Tx) error {
		const from = ` FROM captures_search JOIN captures c ON c.rowid = captures_search.rowid
			WHERE captures_search MATCH ? AND c.user_id = ?`
		if err := tx.QueryRowContext(ctx, `SELECT count(*)`+from, match, userID).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+prefixed("c.", captureColumns)+`,
			snippet(captures_search, -1, '`+SnippetOpen+`', '`+SnippetClose+`', '…', 16)`+from+`
			ORDER BY bm25(captures_search), c.occurred_at DESC, c.id DESC LIMIT ? OFFSET ?`, match, userID, p.Limit, p.Offset())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var snippet string
			c, err := scanCapture(scanAlso{rows, &snippet})
			if err != nil {
				return err
			}
			list = append(list, CaptureMatch{Capture: *c, Snippet: snippet})
		}
		return rows.Err()
	})
	return list, total, err
}

// matchExpression turns what a person typed into an FTS5 query: each word
// a quoted string (so quotes, stars, colons, parentheses and AND, OR, NOT
// mean nothing), all of them required, each once, the last one also as a
// prefix when it is long enough. Words without a letter or digit are left
// out, as the index holds none. It returns EINVALID naming "q" for a query
// outside the bounds.
func matchExpression(query string) (string, error) {
	if n := utf8.RuneCountInString(query); n > SearchMaxLength {
		return "", Invalid("q", "The q may not be longer than %d characters; it has %d.", SearchMaxLength, n)
	}
	if !utf8.ValidString(query) {
		return "", Invalid("q", "The q must be valid UTF-8.")
	}
	if strings.ContainsFunc(query, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) {
		return "", Invalid("q", "The q may not hold control characters.")
	}
	var terms []string
	at := map[string]int{} // a word's place in terms
	last := -1             // the place of the last word
	prefix := false        // whether the last word is long enough to be a prefix
	for _, w := range strings.Fields(query) {
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) || unicode.IsNumber(r) {
				letters++
			}
		}
		if letters == 0 {
			continue
		}
		key := strings.ToLower(w)
		i, ok := at[key]
		if !ok {
			i = len(terms)
			at[key] = i
			terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
		}
		last, prefix = i, letters >= SearchPrefixMin
	}
	if len(terms) == 0 {
		return "", Invalid("q", "The q must hold a word to search for.")
	}
	if len(terms) > SearchMaxWords {
		return "", Invalid("q", "The q may hold at most %d different words; it has %d.", SearchMaxWords, len(terms))
	}
	if prefix {
		terms[last] += "*"
	}
	return strings.Join(terms, " "), nil
}

// prefixed qualifies each of a comma-separated list of columns.
func prefixed(prefix, columns string) string {
	return prefix + strings.ReplaceAll(columns, ", ", ", "+prefix)
}

// scanAlso scans a row's leading columns as row would and the rest into extra.
type scanAlso struct {
	row   interface{ Scan(...any) error }
	extra *string
}

func (s scanAlso) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra)...) }
