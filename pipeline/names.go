package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

// namesEach bounds the existing names of one type that the extract step is
// offered besides those the entry mentions: the header stays the same size
// however long the user has written.
const namesEach = 8

// embedBatch bounds the inputs of one embed call, so that the first run
// over a long journal stores its progress as it goes: a call that times out
// loses one batch, not all of them.
const embedBatch = 64

// nameTypes are the types whose existing names are offered to the extract
// step, in the order the prompt lists them.
var nameTypes = []store.TagType{store.TagPerson, store.TagLocation, store.TagActivity, store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour}

// offeredNames returns, per type, the user's existing names to put before
// the extract step. First come the names the text mentions (as whole
// words, in any of their forms: "cooking" in "I cooked"). Triggers and
// behaviours then offer their categories, one name each: a mentioned name
// of the category, else the category's own name, the categories nearest to
// the text first; persons, locations and activities their names nearest to
// the text. A type offers up to namesEach names in all, and every name
// mentioned; a type with no more than that offers them all and needs no
// embedding. The text is embedded at most once; names and categories are
// embedded once and stored.
func (r *runner) offeredNames(ctx context.Context, text string, existing []store.Tag) (map[store.TagType][]string, error) {
	byType := map[store.TagType][]*store.Tag{} // into existing: ten years are some 1,900 names
	for i := range existing {
		byType[existing[i].Type] = append(byType[existing[i].Type], &existing[i])
	}
	out := map[store.TagType][]string{}
	mentioned := map[string]bool{} // tag and category ids
	var wanting []store.TagType    // types that want their nearest names
	words := wordForms(text)
	folded := fold(text)
	// A name's words are looked for in a row only where its first word is
	// among the text's.
	first := make(map[string]bool, len(words))
	for _, w := range words {
		first[w] = true
	}
	said := func(name string) bool {
		f := r.forms.of(name)
		return mentionsFolded(folded, f.folded) || (len(f.words) > 0 && first[f.words[0]] && mentionsWords(words, f.words))
	}
	for _, typ := range nameTypes {
		tags := byType[typ]
		for _, t := range tags {
			if said(t.Name) {
				out[typ] = append(out[typ], t.Name)
				mentioned[t.ID] = true
				if t.Category != nil {
					mentioned[t.Category.ID] = true
				}
			}
		}
		if !store.Categorised(typ) {
			if len(tags) <= namesEach {
				out[typ] = nil
				for _, t := range tags {
					out[typ] = append(out[typ], t.Name)
				}
			} else if len(out[typ]) < namesEach {
				wanting = append(wanting, typ)
			}
			continue
		}
		var rest []store.Category
		for _, c := range r.categories[typ] {
			switch {
			case mentioned[c.ID]:
			case said(c.Name):
				out[typ] = append(out[typ], c.Name)
				mentioned[c.ID] = true
			default:
				rest = append(rest, c)
			}
		}
		if len(out[typ])+len(rest) <= namesEach {
			for _, c := range rest {
				out[typ] = append(out[typ], c.Name)
			}
			continue
		}
		wanting = append(wanting, typ)
	}
	if len(wanting) == 0 {
		return out, nil
	}
	var plain []store.TagType
	for _, typ := range wanting {
		if !store.Categorised(typ) {
			plain = append(plain, typ)
		}
	}
	vecs, entry, err := r.nameEmbeddings(ctx, text, plain, byType)
	if err != nil {
		return nil, err
	}
	for _, typ := range wanting {
		var names []string
		if store.Categorised(typ) {
			if _, err := r.embedCategories(ctx, r.categories[typ]); err != nil {
				return nil, err
			}
			var c []store.Category
			for _, cat := range r.categories[typ] {
				if !mentioned[cat.ID] {
					c = append(c, cat)
				}
			}
			for _, i := range nearest(entry, len(c), func(i int) []float32 { return c[i].Embedding }, namesEach) {
				names = append(names, c[i].Name)
			}
		} else {
			tags := byType[typ]
			for _, i := range nearest(entry, len(tags), func(i int) []float32 { return vecs[tags[i].ID] }, namesEach+len(out[typ])) {
				if !mentioned[tags[i].ID] {
					names = append(names, tags[i].Name)
				}
			}
		}
		out[typ] = append(out[typ], names[:min(len(names), namesEach-min(namesEach, len(out[typ])))]...)
	}
	return out, nil
}

// nameEmbeddings returns the embeddings of the names of the given types,
// by tag id, and the embedding of the text. Names without a stored
// embedding, or with one of another length than the text's (made by
// another embedding model), are embedded now and stored, embedBatch at a
// time; the text goes with the first batch, so that a journal whose names
// are all embedded makes one call.
func (r *runner) nameEmbeddings(ctx context.Context, text string, types []store.TagType, byType map[store.TagType][]*store.Tag) (map[string][]float32, []float32, error) {
	var vecs map[string][]float32
	var err error
	if r.names != nil {
		vecs, err = r.names.of(ctx, r.store, r.capture.UserID)
	} else {
		vecs, err = r.store.TagEmbeddings(ctx, r.capture.UserID, types...)
	}
	if err != nil {
		return nil, nil, err
	}
	var missing []store.Tag
	for _, typ := range types {
		for _, t := range byType[typ] {
			if _, ok := vecs[t.ID]; !ok {
				missing = append(missing, *t)
			}
		}
	}
	first := missing[:min(len(missing), embedBatch-1)]
	got, err := r.embedNames(ctx, first, vecs, text)
	if err != nil {
		return nil, nil, err
	}
	entry := got[0]
	rest := missing[len(first):]
	for _, typ := range types {
		for _, t := range byType[typ] {
			if v, ok := vecs[t.ID]; ok && len(v) != len(entry) {
				rest = append(rest, *t)
			}
		}
	}
	for len(rest) > 0 {
		batch := rest[:min(len(rest), embedBatch)]
		if _, err := r.embedNames(ctx, batch, vecs); err != nil {
			return nil, nil, err
		}
		rest = rest[len(batch):]
	}
	return vecs, entry, nil
}

// embedNames embeds the texts given, then the names of the tags, in one
// call; it stores the names' embeddings and puts them in vecs, and returns
// the texts' embeddings.
func (r *runner) embedNames(ctx context.Context, tags []store.Tag, vecs map[string][]float32, texts ...string) ([][]float32, error) {
	inputs := slices.Clone(texts)
	for _, t := range tags {
		inputs = append(inputs, t.Name)
	}
	got, err := r.model.Embed(ctx, inputs)
	if err != nil {
		return nil, err
	}
	if len(got) != len(inputs) {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrTransient, len(got), len(inputs))
	}
	if len(tags) == 0 {
		return got, nil
	}
	fresh := make(map[string][]float32, len(tags))
	for i, t := range tags {
		fresh[t.ID] = got[len(texts)+i]
		vecs[t.ID] = got[len(texts)+i]
	}
	if err := r.store.SetTagEmbeddings(ctx, fresh); err != nil {
		return nil, err
	}
	return got[:len(texts)], nil
}

// nearest returns the indices of the n of count vectors (vec(i) is the
// i-th) nearest to v by cosine similarity, nearest first; equally near ones
// keep their order.
func nearest(v []float32, count int, vec func(i int) []float32, n int) []int {
	sim := make([]float64, count)
	order := make([]int, count)
	for i := range order {
		order[i], sim[i] = i, cosine(v, vec(i))
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(sim[a], sim[b]) })
	return order[:min(n, count)]
}

// fold is text in lower case with every run of spaces made one space, the
// form in which mentions compares names with an entry.
func fold(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(text)), " ")
}

// mentions reports whether the folded text holds the name as whole words,
// whatever its case: "Carmen" in "Carmen's call", not "art" in "started".
func mentions(folded, name string) bool {
	return mentionsFolded(folded, fold(name))
}

// mentionsFolded is mentions of a name folded already.
func mentionsFolded(folded, name string) bool {
	if name == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	for off := 0; off < len(folded); {
		i := strings.Index(folded[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		before, _ := utf8.DecodeLastRuneInString(folded[:i])
		after, _ := utf8.DecodeRuneInString(folded[end:])
		if !(i > 0 && wordRune(before) && wordRune(first)) && !(end < len(folded) && wordRune(after) && wordRune(last)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(folded[i:])
		off = i + size
	}
	return false
}

// wordRune reports whether r is part of a word.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordForms is the text's words, each cut to its stem (see stem), in order.
func wordForms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !wordRune(r) && r != '\'' && r != '’' })
	for i, w := range words {
		words[i] = stem(w)
	}
	return words
}

// mentionsForms reports whether the words (wordForms of a text) hold the
// name's words in a row, each in any of its forms: "cooking dinner" in "I
// cooked dinner".
func mentionsForms(words []string, name string) bool {
	return mentionsWords(words, wordForms(name))
}

// mentionsWords is mentionsForms of a name's wordForms.
func mentionsWords(words, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for i := 0; i+len(want) <= len(words); i++ {
		if slices.Equal(words[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// stem cuts an English word to a stem its forms share: "cooking",
// "cooked", "cooks" and "cook" are all "cook", "running" and "run" are
// "run". A stem keeps three letters at least; a word it would cut shorter
// stays whole ("bed", "is").
func stem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	for _, suffix := range []string{"ing", "ed", "es", "s"} {
		if s := strings.TrimSuffix(w, suffix); s != w && utf8.RuneCountInString(s) >= 3 {
			if suffix == "es" && !strings.HasSuffix(s, "sh") && !strings.HasSuffix(s, "ch") && !strings.HasSuffix(s, "x") && !strings.HasSuffix(s, "s") {
				continue // "homes" is "home" and "s", not "hom" and "es"
			}
			w = s
			break
		}
	}
	w = strings.TrimSuffix(w, "e") // "baking" and "bake"
	// A doubled last letter is written once: "runn(ing)" and "run".
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiou", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}
