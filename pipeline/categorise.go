package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/recur-journal/recur/store"
)

// shortlistAbove is the number of categories of a kind beyond which only
// the nearest ones by embedding are offered to the model, so the prompt
// stays small however long the user has written.
const (
	shortlistAbove = 40
	shortlistEach  = 8
)

var categoriseSchema = json.RawMessage(`{"type":"object","properties":{"assignments":{"type":"array","items":{` +
	`"type":"object","properties":{"item":{"type":"string"},` +
	`"category":{"type":"string","description":"the ref of an existing category of the same meaning, or an empty string"},` +
	`"new_category":{"type":"string","maxLength":60,"description":"when category is empty: the name of a new category"}},` +
	`"required":["item","category","new_category"],"additionalProperties":false}}},` +
	`"required":["assignments"],"additionalProperties":false}`)

var categoriseChecks = mustParseSchema(categoriseSchema)

var categoriseSystem = prompt(`You group the triggers and behaviours of a personal journal into categories of the same meaning,
so that what keeps coming back can be counted. Each new item has a ref (t1 for a trigger, g1 for a good behaviour,
b1 for a bad behaviour) and each existing category a ref too (ct1, cg1, cb1).
For every new item, either put it in an existing category of the same kind whose meaning is the same
(set category to that ref and new_category to ""), or found a new category (set category to "" and new_category to
a short general name in lower case, two to four words, such as "criticism at work", "skipping meals", "going for a run").
Items of the same meaning found together share one new category name. Prefer an existing category when it fits.`, categoriseSchema)

// item is a trigger or behaviour that has no category yet.
type item struct {
	ref  string
	kind string
	name string
}

// offer is an existing category put before the model.
type offer struct {
	ref string
	cat store.Category
}

var kindPrefix = map[string]string{store.TagTrigger: "t", store.TagGoodBehaviour: "g", store.TagBadBehaviour: "b"}

// categorise asks the model to place each item in an offered category or a
// new one, and returns, per item ref, the chosen category id or new name.
func (r *runner) categorise(ctx context.Context, items []item) (map[string]store.NewTag, error) {
	var user strings.Builder
	offers := map[string]offer{}
	for _, kind := range []string{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour} {
		var mine []item
		for _, it := range items {
			if it.kind == kind {
				mine = append(mine, it)
			}
		}
		if len(mine) == 0 {
			continue
		}
		cats, err := r.candidates(ctx, kind, mine)
		if err != nil {
			return nil, err
		}
		label := strings.ReplaceAll(kind, "_", " ")
		fmt.Fprintf(&user, "Existing %s categories:\n", label)
		if len(cats) == 0 {
			user.WriteString("(none)\n")
		}
		for i, c := range cats {
			ref := fmt.Sprintf("c%s%d", kindPrefix[kind], i+1)
			offers[ref] = offer{ref, c}
			fmt.Fprintf(&user, "[%s] %s\n", ref, c.Name)
		}
		fmt.Fprintf(&user, "New %ss:\n", label)
		for _, it := range mine {
			fmt.Fprintf(&user, "[%s] %s\n", it.ref, it.name)
		}
		user.WriteString("\n")
	}

	var out map[string]store.NewTag
	err := r.call(ctx, StepCategorise, ChatRequest{System: categoriseSystem, User: user.String(), Schema: categoriseSchema, MaxTokens: 60 * (len(items) + 2)},
		func(content string) error {
			var err error
			out, err = r.place(content, items, offers)
			return err
		})
	return out, err
}

type categoriseAnswer struct {
	Assignments []struct {
		Item        string `json:"item"`
		Category    string `json:"category"`
		NewCategory string `json:"new_category"`
	} `json:"assignments"`
}

// place reads a categorise answer and returns, per item ref, the offered
// category it joins or the new category it founds. It returns unusable
// output when the answer breaks its schema, names an item that was not
// asked about, or leaves an item without a category.
func (r *runner) place(content string, items []item, offers map[string]offer) (map[string]store.NewTag, error) {
	var ans categoriseAnswer
	if err := decode(content, categoriseChecks, &ans); err != nil {
		return nil, err
	}
	byRef := make(map[string]item, len(items))
	for _, it := range items {
		byRef[it.ref] = it
	}
	out := map[string]store.NewTag{}
	for _, a := range ans.Assignments {
		it, ok := byRef[strings.TrimSpace(a.Item)]
		if !ok {
			return nil, unusablef("assignment for unknown item %s", brief(a.Item))
		}
		nt := store.NewTag{Type: it.kind, Name: it.name}
		if o, ok := offers[strings.TrimSpace(a.Category)]; ok && o.cat.Kind == it.kind {
			nt.CategoryID = o.cat.ID
		} else {
			// The schema bounds new_category; spaces and case only shrink it.
			name := strings.ToLower(strings.Join(strings.Fields(a.NewCategory), " "))
			if name == "" {
				return nil, unusablef("item %s has neither an offered category nor a new name", it.ref)
			}
			nt.NewCategory = name
			// A new name equal to an existing category (rejected ones too)
			// joins it: a rejected topic stays absorbed and left alone.
			if c, ok := r.categoryByName(it.kind, name); ok {
				nt.NewCategory, nt.CategoryID = "", c.ID
			}
		}
		out[it.ref] = nt
	}
	if len(out) != len(items) {
		return nil, unusablef("%d of %d items placed", len(out), len(items))
	}
	return out, nil
}

// categoryByName finds one of the user's categories of the kind by name.
func (r *runner) categoryByName(kind, name string) (store.Category, bool) {
	for _, c := range r.categories[kind] {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return store.Category{}, false
}

// candidates returns the categories of a kind to offer: all of them when
// they are few, otherwise the nearest to each item by embedding. Rejected
// categories are offered like the others: what means the same joins them,
// and they stay out of patterns.
func (r *runner) candidates(ctx context.Context, kind string, items []item) ([]store.Category, error) {
	cats := r.categories[kind]
	if len(cats) <= shortlistAbove {
		return cats, nil
	}
	var missing []int
	var texts []string
	for i, c := range cats {
		if len(c.Embedding) == 0 {
			missing = append(missing, i)
			texts = append(texts, c.Name)
		}
	}
	for _, it := range items {
		texts = append(texts, it.name)
	}
	vecs, err := r.model.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		cats[i].Embedding = vecs[j]
		if err := r.store.SetCategoryEmbedding(ctx, cats[i].ID, vecs[j]); err != nil {
			return nil, err
		}
	}
	chosen := map[int]bool{}
	for k := range items {
		for _, i := range nearest(vecs[len(missing)+k], len(cats), func(i int) []float32 { return cats[i].Embedding }, shortlistEach) {
			chosen[i] = true
		}
	}
	var out []store.Category
	for i, c := range cats {
		if chosen[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return -1
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return -1
	}
	return dot / math.Sqrt(na*nb)
}
