package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// typed so far would. A word matches in its forms: the index stems English
// words, and an entry in a language with a stemmer (see stemmers) also by
// the stems of its text as written, against the word's stems in each such
// language the journal holds. It returns EINVALID naming "q" for a query
// that is empty, longer than SearchMaxLength characters, holds more than
// SearchMaxWords different words or a control character, or runs longer
// than SearchBudget; and ETOOMANY while the user's previous search runs
// or the instance's searches stay busy for SearchWait.
func (s *Store) SearchCaptures(ctx context.Context, userID, query string, p Page) ([]CaptureMatch, int, error) {
	return s.searchCaptures(ctx, userID, CaptureFilter{Query: query}, p)
}

// searchCaptures is SearchCaptures narrowed by the rest of f, which is
// valid.
func (s *Store) searchCaptures(ctx context.Context, userID string, f CaptureFilter, p Page) ([]CaptureMatch, int, error) {
	terms, err := searchTerms(f.Query)
	if err != nil {
		return nil, 0, err
	}
	if err := s.searches.enter(ctx, userID); err != nil {
		return nil, 0, err
	}
	defer s.searches.leave(userID)
	budget, cancel := context.WithTimeout(ctx, s.searches.budget)
	defer cancel()
	list, total, err := s.search(budget, userID, terms, f, p)
	if err != nil && ctx.Err() == nil && budget.Err() != nil {
		return nil, 0, Invalid("q", "This search takes too long; search for fewer or longer words.")
	}
	return list, total, err
}

func (s *Store) search(ctx context.Context, userID string, terms searchWords, f CaptureFilter, p Page) ([]CaptureMatch, int, error) {
	var list []CaptureMatch
	var total int
	err := s.view(ctx, func(tx *sql.Tx) error {
		if err := checkFeelings(ctx, tx, f.Feelings); err != nil {
			return err
		}
		languages, err := journalLanguages(ctx, tx, userID)
		if err != nil {
			return err
		}
		from, args := f.searchFrom(userID, terms.match(languages))
		if err := tx.QueryRowContext(ctx, `SELECT count(*)`+from, args...).Scan(&total); err != nil {
			return err
		}
		// A snippet of the text as written or of its translation, never of
		// the stems, which are no text to read.
		rows, err := tx.QueryContext(ctx, `SELECT `+prefixed("c.", captureColumns)+`,
			snippet(captures_search, 0, '`+SnippetOpen+`', '`+SnippetClose+`', '…', 16),
			snippet(captures_search, 1, '`+SnippetOpen+`', '`+SnippetClose+`', '…', 16)`+from+`
			ORDER BY bm25(captures_search), c.occurred_at DESC, c.id DESC LIMIT ? OFFSET ?`, append(args, p.Limit, p.Offset())...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var original, translated string
			c, err := scanCapture(scanAlso{rows, []*string{&original, &translated}})
			if err != nil {
				return err
			}
			list = append(list, CaptureMatch{Capture: *c, Snippet: pickSnippet(original, translated, c.Language, terms)})
		}
		return rows.Err()
	})
	return list, total, err
}

// searchFrom is the FROM and WHERE of a search for the FTS5 query match
// among the user's captures that f's filters let through, and its
// arguments.
func (f *CaptureFilter) searchFrom(userID, match string) (string, []any) {
	cond, args := f.filterSQL(userID)
	// CROSS JOIN keeps the index of words the outer loop: a search reads
	// the captures its words find, and the filters look each one up, rather
	// than the index of words being asked once for each of the user's
	// captures in the dates.
	return ` FROM captures_search CROSS JOIN captures c ON c.rowid = captures_search.rowid
		WHERE captures_search MATCH ? AND c.user_id = ?` + cond, append([]any{match, userID}, args...)
}

// pickSnippet chooses the snippet of the text as written when the search
// marked a match in it, else that of the translation when it did, else the
// text as written. A match found through the stems alone is marked in the
// text as written here, word by word, with the entry's stemmer.
func pickSnippet(original, translated, language string, terms searchWords) string {
	if marked := terms.markStems(original, language); strings.Contains(marked, SnippetOpen) {
		return marked
	}
	if strings.Contains(translated, SnippetOpen) {
		return translated
	}
	return original
}

// searchWords are the words of a search, each once, as typed; the one
// typed last also matches as the start of a word when prefix is set.
type searchWords struct {
	words  []string
	last   int  // the place of the word typed last
	prefix bool // whether the last word is long enough to be a prefix
}

// searchTerms reads what a person typed into words to search for: words
// without a letter or digit are left out, as the index holds none. It
// returns EINVALID naming "q" for a query outside the bounds.
func searchTerms(query string) (searchWords, error) {
	if n := utf8.RuneCountInString(query); n > SearchMaxLength {
		return searchWords{}, Invalid("q", "The q may not be longer than %d characters; it has %d.", SearchMaxLength, n)
	}
	if !utf8.ValidString(query) {
		return searchWords{}, Invalid("q", "The q must be valid UTF-8.")
	}
	if strings.ContainsFunc(query, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) {
		return searchWords{}, Invalid("q", "The q may not hold control characters.")
	}
	var t searchWords
	at := map[string]int{} // a word's place in words
	last := -1             // the place of the last word
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
			i = len(t.words)
			at[key] = i
			t.words = append(t.words, w)
		}
		last, t.prefix = i, letters >= SearchPrefixMin
	}
	if len(t.words) == 0 {
		return searchWords{}, Invalid("q", "The q must hold a word to search for.")
	}
	if len(t.words) > SearchMaxWords {
		return searchWords{}, Invalid("q", "The q may hold at most %d different words; it has %d.", SearchMaxWords, len(t.words))
	}
	t.last = last
	return t, nil
}

// match is the FTS5 query of the words: each word a quoted string (so
// quotes, stars, colons, parentheses and AND, OR, NOT mean nothing), all
// of them required, each matching as written in any column or by its stem
// in one of languages in the stems column.
func (t searchWords) match(languages []string) string {
	terms := make([]string, len(t.words))
	for i, w := range t.words {
		star := ""
		if t.prefix && i == t.last {
			star = "*"
		}
		alts := []string{quote(w) + star}
		seen := map[string]bool{}
		for _, stem := range t.stems(w, languages) {
			if !seen[stem] {
				seen[stem] = true
				alts = append(alts, "stems : "+quote(stem)+star)
			}
		}
		terms[i] = alts[0]
		if len(alts) > 1 {
			terms[i] = "(" + strings.Join(alts, " OR ") + ")"
		}
	}
	// FTS5 joins a group in parentheses to the next term only by an
	// explicit AND.
	return strings.Join(terms, " AND ")
}

// stems gives the stems of a word of the search in each of languages, for
// each word it holds as the index reads it.
func (t searchWords) stems(w string, languages []string) []string {
	var out []string
	parts := words(w)
	for _, l := range languages {
		cut := make([]string, len(parts))
		for i, p := range parts {
			cut[i] = stemWord(l, p)
		}
		out = append(out, strings.Join(cut, " "))
	}
	return out
}

// markStems marks in a snippet of the text as written in language each
// word whose stem is that of a word of the search (the last word's stem
// also as the start of one), and returns it unchanged when none is.
func (t searchWords) markStems(snippet, language string) string {
	if stemmers[language] == nil {
		return snippet
	}
	want := make([]string, len(t.words))
	for i, w := range t.words {
		want[i] = t.stems(w, []string{language})[0]
	}
	var b strings.Builder
	marked := false
	rest := snippet
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return isWordRune(r) || r == rune(SnippetOpen[0]) })
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		if strings.HasPrefix(rest, SnippetOpen) {
			// Marked already by the index: kept as it is.
			end := strings.Index(rest, SnippetClose)
			if end < 0 {
				end = len(rest) - len(SnippetClose)
			}
			b.WriteString(rest[:end+len(SnippetClose)])
			rest = rest[end+len(SnippetClose):]
			continue
		}
		j := strings.IndexFunc(rest, func(r rune) bool { return !isWordRune(r) })
		if j < 0 {
			j = len(rest)
		}
		word := rest[:j]
		rest = rest[j:]
		stem := stemWord(language, strings.ToLower(norm.NFC.String(word)))
		hit := slices.Contains(want, stem) || (t.prefix && want[t.last] != "" && strings.HasPrefix(stem, want[t.last]))
		if hit {
			b.WriteString(SnippetOpen + word + SnippetClose)
			marked = true
		} else {
			b.WriteString(word)
		}
	}
	if !marked {
		return snippet
	}
	return b.String()
}

func quote(w string) string { return `"` + strings.ReplaceAll(w, `"`, `""`) + `"` }

// prefixed qualifies each of a comma-separated list of columns.
func prefixed(prefix, columns string) string {
	return prefix + strings.ReplaceAll(columns, ", ", ", "+prefix)
}

// scanAlso scans a row's leading columns as row would and the rest into extra.
type scanAlso struct {
	row   interface{ Scan(...any) error }
	extra []*string
}

func (s scanAlso) Scan(dest ...any) error {
	for _, e := range s.extra {
		dest = append(dest, e)
	}
	return s.row.Scan(dest...)
}
