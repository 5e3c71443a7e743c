package i18n_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store/storetest"
)

// The packages whose pages, mails, notifications and API error sentences
// speak from the catalogue, from this package's folder.
var speaking = []string{"../../web", "../../account", "../../notify", "../../mail", "../../server"}

// The packages whose refusals (store.Invalid) reach people, and the files
// among them whose refusals are about an import's or the model's own
// records rather than what a person typed, which stay English.
var (
	refusing    = []string{"../../store", "../../journal", "../../notify", "../../web"}
	notRefusing = map[string]bool{"restore.go": true, "restoreids.go": true, "queue.go": true, "categoryname.go": true}
)

var templateKey = regexp.MustCompile(`[({]-?\s*(?:t|th)\s+("(?:[^"\\]|\\.)*")`)

// usedKeys finds every key the code says: {{t "..."}} and {{th "..."}} in
// the templates, and .T("...") and i18n.Key("...") in Go.
func usedKeys(t *testing.T) map[string]string {
	t.Helper()
	keys := map[string]string{} // key -> where
	templates, _ := filepath.Glob("../../web/templates/*.html")
	for _, p := range templates {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range templateKey.FindAllStringSubmatch(string(b), -1) {
			k, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatalf("%s: %s: %v", p, m[1], err)
			}
			keys[k] = filepath.Base(p)
		}
	}
	fset := token.NewFileSet()
	for _, dir := range append(slices.Clone(speaking), refusing...) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				if format, ok := refusal(call); ok && !notRefusing[filepath.Base(p)] {
					keys[format] = fset.Position(call.Pos()).String()
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "T" && sel.Sel.Name != "Key") || !slices.Contains(speaking, dir) {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					k, _ := strconv.Unquote(lit.Value)
					keys[k] = fset.Position(lit.Pos()).String()
				}
				return true
			})
		}
	}
	if len(keys) < 100 {
		t.Fatalf("found only %d keys: is the search looking in the right places?", len(keys))
	}
	return keys
}

// refusal is the format of a call Invalid(field, "...", ...): a refusal a
// person reads, which Locale.Sentence says in their language (reading a
// number or a name back into it), and so must be in the catalogue.
func refusal(call *ast.CallExpr) (string, bool) {
	name := ""
	switch f := call.Fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	if (name != "Invalid" && name != "invalid") || len(call.Args) < 2 {
		return "", false
	}
	lit, ok := call.Args[1].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	format, _ := strconv.Unquote(lit.Value)
	return format, !strings.HasPrefix(format, "%") && !strings.Contains(format, "%q")
}

func readAll(t *testing.T) map[string]*i18n.File {
	t.Helper()
	out := map[string]*i18n.File{}
	for _, lang := range i18n.Languages() {
		f, err := i18n.ReadFile(lang)
		if err != nil {
			t.Fatal(err)
		}
		out[lang] = f
	}
	return out
}

var verb = regexp.MustCompile(`%(?:\[\d+\])?[sd]`)

// verbs are a message's format verbs, sorted: a translation may reorder
// them but must keep each.
func verbs(s string) []string {
	v := verb.FindAllString(s, -1)
	slices.Sort(v)
	return v
}

// Every key a page, mail or notification says has a translation in every
// language, with the key's own arguments; a key with a count has plural
// forms in every language, English included.
func TestEveryKeyHasATranslation(t *testing.T) {
	t.Parallel()
	files := readAll(t)
	for key, where := range usedKeys(t) {
		_, plural := files["en"].Plurals[key]
		for lang, f := range files {
			if lang == "en" {
				continue
			}
			if plural {
				forms, ok := f.Plurals[key]
				if !ok {
					t.Errorf("%s: %q (%s) lacks its plural forms", lang, key, where)
				}
				if _, ok := forms["other"]; ok && len(forms) < 2 {
					t.Errorf("%s: %q has only the form other", lang, key)
				}
				continue
			}
			msg, ok := f.Messages[key]
			if !ok {
				t.Errorf("%s: %q (%s) lacks a translation", lang, key, where)
				continue
			}
			if !slices.Equal(verbs(msg), verbs(key)) {
				t.Errorf("%s: %q says %q, with other arguments", lang, key, msg)
			}
		}
	}
}

// Every catalogue holds the same keys, plural keys and feelings as the
// others, so no language falls back to English for a sentence another
// language has.
func TestCataloguesAgree(t *testing.T) {
	t.Parallel()
	files := readAll(t)
	de := files["de"]
	for lang, f := range files {
		if lang == "en" {
			for key := range f.Plurals {
				if _, ok := de.Plurals[key]; !ok {
					t.Errorf("en: plural %q is in no other catalogue", key)
				}
			}
			continue
		}
		for key := range de.Messages {
			if _, ok := f.Messages[key]; !ok {
				t.Errorf("%s lacks %q, which de has", lang, key)
			}
		}
		for key := range f.Messages {
			if _, ok := de.Messages[key]; !ok {
				t.Errorf("de lacks %q, which %s has", key, lang)
			}
		}
		for key, forms := range files["en"].Plurals {
			if _, ok := f.Plurals[key]; !ok {
				t.Errorf("%s lacks the plural forms of %q", lang, key)
			}
			for _, form := range f.Plurals[key] {
				if len(verbs(form)) > len(verbs(forms["other"])) {
					t.Errorf("%s: a form of %q, %q, has more arguments than the key", lang, key, form)
				}
			}
		}
		if i18n.Name(lang) == "" {
			t.Errorf("%s has no name", lang)
		}
	}
}

// Every feeling of the vocabulary Recur stores has a name in every language.
func TestEveryFeelingHasAName(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	feelings, err := s.Feelings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(feelings) < 50 {
		t.Fatalf("the vocabulary holds %d feelings", len(feelings))
	}
	files := readAll(t)
	for lang, f := range files {
		if lang == "en" {
			continue
		}
		for _, fl := range feelings {
			if f.Feelings[fl.Name] == "" {
				t.Errorf("%s: the feeling %q has no name", lang, fl.Name)
			}
		}
		if got, want := len(f.Feelings), len(feelings); got != want {
			t.Errorf("%s names %d feelings; the vocabulary has %d", lang, got, want)
		}
	}
}
