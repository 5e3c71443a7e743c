package i18n

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A sentence made elsewhere with fmt from a key with arguments ("The text
// may not be longer than %d characters; it has %d.") reaches Sentence
// finished, numbers and names in it. sentenceForm reads such a sentence
// back into its key and arguments, so that it can be said in another
// language with the numbers in the locale's form.
type sentenceForm struct {
	key     string
	re      *regexp.Regexp
	verbs   []byte // 'd' or 's', one a group of re
	literal int    // letters of the key outside its verbs
}

var plainVerb = regexp.MustCompile(`%[sd]`)

// verbGroup is what each verb reads back: a number or some text.
var verbGroup = map[byte]string{'d': `(-?[0-9]+)`, 's': `(.+?)`}

// minLiteral is the least text a key must hold besides its verbs to be
// read back: "%s, today" would match too much.
const minLiteral = 12

// sentenceForms are the forms of the texts with %d or %s (not %[n]d) that
// sentences are made from, each read back into its key (madeFrom maps a
// text to its key), the one with the most text first, so the most
// particular one wins.
func sentenceForms(madeFrom map[string]string) []sentenceForm {
	var out []sentenceForm
	for text, key := range madeFrom {
		if strings.Contains(text, "%[") || !plainVerb.MatchString(text) {
			continue
		}
		parts := plainVerb.Split(text, -1)
		literal := len(strings.Join(parts, ""))
		if literal < minLiteral {
			continue
		}
		var verbs []byte
		for _, v := range plainVerb.FindAllString(text, -1) {
			verbs = append(verbs, v[1])
		}
		var re strings.Builder
		re.WriteString("^")
		for i, p := range parts {
			re.WriteString(regexp.QuoteMeta(p))
			if i < len(verbs) {
				re.WriteString(verbGroup[verbs[i]])
			}
		}
		re.WriteString("$")
		out = append(out, sentenceForm{key: key, re: regexp.MustCompile(re.String()), verbs: verbs, literal: literal})
	}
	slices.SortFunc(out, func(a, b sentenceForm) int {
		if a.literal != b.literal {
			return b.literal - a.literal
		}
		return strings.Compare(a.re.String(), b.re.String())
	})
	return out
}

// readBack finds the key s was made from and its arguments.
func readBack(forms []sentenceForm, s string) (string, []any, bool) {
	for _, f := range forms {
		m := f.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		args := make([]any, len(f.verbs))
		for i, v := range f.verbs {
			args[i] = m[i+1]
			if v == 'd' {
				n, err := strconv.Atoi(m[i+1])
				if err != nil {
					return "", nil, false
				}
				args[i] = n
			}
		}
		return f.key, args, true
	}
	return "", nil, false
}
