package evaluate

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/abadojack/whatlanggo"
	"golang.org/x/text/language"
)

// DescriptionReport says whether the patterns' descriptions are written in
// the writer's language (the journal's locale).
type DescriptionReport struct {
	Language   string `json:"language"` // ISO 639-1, of the locale
	Written    int    `json:"written"`  // patterns with a description
	InLanguage int    `json:"in_language"`
	// Wrong names each description in another language, with the one it
	// reads as.
	Wrong []string `json:"wrong"`
}

// scoreDescriptions detects the language of each pattern's description,
// locally, leaving out the patterns' names: they are the writer's
// categories, named in the language the entries are analysed in (English),
// which a description may well quote.
func scoreDescriptions(j *Journal, patterns []FoundPattern) DescriptionReport {
	tag, _ := language.Parse(j.locale())
	base, _ := tag.Base()
	r := DescriptionReport{Language: base.String(), Wrong: []string{}}
	var names []string
	for _, p := range patterns {
		names = append(names, regexp.QuoteMeta(strings.ToLower(p.Name)))
	}
	ownNames := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	for _, p := range patterns {
		if p.Description == "" {
			continue
		}
		r.Written++
		text := p.Description
		if len(names) > 0 {
			text = ownNames.ReplaceAllString(strings.ToLower(text), " ")
		}
		if got := whatlanggo.Detect(text).Lang.Iso6391(); got == r.Language {
			r.InLanguage++
		} else {
			r.Wrong = append(r.Wrong, fmt.Sprintf("%s (reads as %s)", p.Name, got))
		}
	}
	return r
}
