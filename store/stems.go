package store

import (
	"context"
	"database/sql"
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"golang.org/x/text/unicode/norm"
)

// stemmers are the Snowball stemmers of the languages, by ISO 639-1 code,
// whose word forms the search finds in the text as written. English needs
// none: the index's own Porter stemmer reads it, in the original and in
// every entry's English translation.
var stemmers = map[string]func(*snowballstem.Env) bool{
	"da": danish.Stem, "de": german.Stem, "es": spanish.Stem, "fi": finnish.Stem, "fr": french.Stem,
	"it": italian.Stem, "nb": norwegian.Stem, "nl": dutch.Stem, "no": norwegian.Stem, "pt": portuguese.Stem,
	"ro": romanian.Stem, "sv": swedish.Stem,
}

// stemLanguages lists the codes of stemmers as SQL values, for asking
// which of them a journal holds.
var stemLanguages = func() string {
	var b strings.Builder
	for code := range stemmers {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("('" + code + "')")
	}
	return b.String()
}()

// stemWord cuts one lower-case word to its stem in language, which must
// have a stemmer.
func stemWord(language, word string) string {
	env := snowballstem.NewEnv(word)
	stemmers[language](env)
	return env.Current()
}

// words splits text into its words, lower-case: runs of letters, digits
// and combining marks, as the index's tokenizer reads them.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(norm.NFC.String(text)), func(r rune) bool { return !isWordRune(r) })
}

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

// wordStems is what the index holds of text in language besides the text:
// each different stem of its words, in the order they first come, or ""
// for a language without a stemmer.
func wordStems(text, language string) string {
	if stemmers[language] == nil {
		return ""
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range words(text) {
		s := stemWord(language, w)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// stemsBatch is how many entries fillStems cuts in one transaction.
const stemsBatch = 500

// fillStems cuts the words of the entries whose stems are not cut yet
// (NULL: analysed before the index held stems), a batch per transaction.
func (s *Store) fillStems(ctx context.Context) error {
	for {
		n := 0
		err := s.update(ctx, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT id, original, language FROM captures WHERE stems IS NULL LIMIT ?`, stemsBatch)
			if err != nil {
				return err
			}
			type cut struct{ id, stems string }
			var cuts []cut
			for rows.Next() {
				var id, original, language string
				if err := rows.Scan(&id, &original, &language); err != nil {
					rows.Close()
					return err
				}
				cuts = append(cuts, cut{id, wordStems(original, language)})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, c := range cuts {
				if _, err := tx.ExecContext(ctx, `UPDATE captures SET stems = ? WHERE id = ?`, c.stems, c.id); err != nil {
					return err
				}
			}
			n = len(cuts)
			return nil
		})
		if err != nil || n < stemsBatch {
			return err
		}
	}
}

// journalLanguages returns which languages with a stemmer the user's
// journal holds, one index look-up per stemmer.
func journalLanguages(ctx context.Context, tx *sql.Tx, userID string) ([]string, error) {
	return queryStrings(ctx, tx, `SELECT l.column1 FROM (VALUES `+stemLanguages+`) l
		WHERE EXISTS (SELECT 1 FROM captures WHERE user_id = ? AND language = l.column1 AND stems != '')
		ORDER BY l.column1`, userID)
}
