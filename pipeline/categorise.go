package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recur-journal/recur/store"
)

var categoriseSchema = json.RawMessage(`{"type":"object","properties":{"assignments":{"type":"array","description":"one for every new item","items":{` +
	`"type":"object","properties":{"item":{"type":"string","description":"the new item's ref as listed, such as t1"},` +
	`"category":{"type":"string","description":"the ref of the existing category it joins, or empty"},` +
	`"new_category":{"type":"string","maxLength":60,"description":"when category is empty: the new category's name"}},` +
	`"required":["item","category","new_category"],"additionalProperties":false}}},` +
	`"required":["assignments"],"additionalProperties":false}`)

var categoriseChecks = mustParseSchema(categoriseSchema)

var categoriseSystem = prompt(`You group the triggers and behaviours of a personal journal into categories of the same meaning,
so that what keeps coming back can be counted. The situations (s1, s2), the new items (t1 a trigger, g1 a good behaviour,
b1 a bad behaviour, each with the situation it comes from) and the existing categories (ct1, cg1, cb1) are given by ref.
Put every new item in an existing category of its kind whose meaning is the same, or found a new category with
a short general name, two to four words, such as "criticism at work", "calls from my mother", "skipping meals", "going for a run".
Read the situation to know what the item is about. Name a category by the event or the act, never by a feeling:
"calls from my mother", not "family guilt"; "deadlines at work", not "work stress".
Pleasant and unpleasant situations never share a category: an item from a pleasant one does not join a category listed
under unpleasant ones, nor the other way round; when both tell the same kind of event, name each by what happened
("praise from my boss", "criticism from my boss").
Write names in lower case, but keep the capitals of proper names as the situation writes them ("plans with Mika").
Items of the same meaning found together share one new category name. Prefer an existing category when it fits.`, categoriseSchema)

// situationChars bounds the situation text shown with each new item.
const situationChars = 240

// item is a trigger or behaviour that has no category yet, with the text of
// the first situation it comes from and that situation's valence (see
// valenceOf).
type item struct {
	ref       string
	kind      store.TagType
	name      string
	situation string
	valence   int
	// seg is the index of the situation's segment: items of one situation
	// share it, and it is printed once.
	seg int
	// crossing is set when the name is the writer's already, in a category
	// of the other valence: the item is placed anew and stored under
	// another name (see crossingName), as a name has one category.
	crossing bool
}

// offer is an existing category put before the model, with the valence of
// the situations its members came from (store.CategoryValences).
type offer struct {
	ref     string
	cat     store.Category
	valence int
}

var kindPrefix = map[store.TagType]string{store.TagTrigger: "t", store.TagGoodBehaviour: "g", store.TagBadBehaviour: "b"}

// valenceOf is 1 when a situation's feelings are all pleasant, -1 when they
// are all unpleasant, and 0 when they are mixed or there are none.
func valenceOf(tags []store.NewTag) int {
	pleasant, unpleasant := false, false
	for _, t := range tags {
		pleasant = pleasant || t.Type == store.TagPositiveFeeling
		unpleasant = unpleasant || t.Type == store.TagNegativeFeeling
	}
	switch {
	case pleasant && !unpleasant:
		return 1
	case unpleasant && !pleasant:
		return -1
	}
	return 0
}

var valenceWords = map[int]string{1: "pleasant", -1: "unpleasant", 0: "mixed or no feelings"}

// crosses tells whether a trigger or behaviour named as one the writer
// already has, in a situation of the given valence, would cross feelings by
// keeping that name's category (whose valence catValence holds), and
// whether the name has a category at all.
func crosses(t store.NewTag, valence int, names known, catValence map[string]int) (crossing, hasCategory bool) {
	old, ok := names[t.Type][strings.ToLower(t.Name)]
	if !ok || old.Category == nil {
		return false, false
	}
	return catValence[old.Category.ID]*valence < 0, true
}

// itemKey is the key of an item in the refs newItems returns.
func itemKey(t store.NewTag, crossing bool) string {
	key := string(t.Type) + "\x00" + strings.ToLower(t.Name)
	if crossing {
		key += "\x00crossing"
	}
	return key
}

// newItems lists the triggers and behaviours of the segments that have no
// category yet, each once, and returns them with their refs by itemKey. An
// item keeps the first situation it comes from; its valence is that
// situation's, or 0 when its situations disagree. A name the writer
// already has keeps its category, unless the category's valence
// (catValence) is the other of the situation's: then it is an item too.
func newItems(text string, spans []span, tags [][]store.NewTag, names known, catValence map[string]int) ([]item, map[string]string) {
	var items []item
	refs := map[string]string{} // itemKey -> ref
	at := map[string]int{}      // ref -> index in items
	for i, seg := range tags {
		valence := valenceOf(seg)
		for _, t := range seg {
			if !store.Categorised(t.Type) {
				continue
			}
			crossing, has := crosses(t, valence, names, catValence)
			if has && !crossing {
				continue
			}
			key := itemKey(t, crossing)
			if ref, ok := refs[key]; ok {
				if it := &items[at[ref]]; it.valence != valence {
					it.valence = 0
				}
				continue
			}
			ref := fmt.Sprintf("%s%d", kindPrefix[t.Type], len(items)+1)
			refs[key], at[ref] = ref, len(items)
			items = append(items, item{ref: ref, kind: t.Type, name: t.Name, valence: valence, crossing: crossing, seg: i,
				situation: excerpt(strings.Join(strings.Fields(text[spans[i].Start:spans[i].End]), " "), t.Name, situationChars)})
		}
	}
	return items, refs
}

// categorise asks the model to place each item in an offered category or a
// new one, and returns, per item ref, the chosen category id or new name.
func (r *runner) categorise(ctx context.Context, items []item) (map[string]store.NewTag, error) {
	var user strings.Builder
	// Each situation is printed once, shown as around its first item.
	user.WriteString("Situations:\n")
	sitRef := map[int]string{}
	for _, it := range items {
		if _, ok := sitRef[it.seg]; !ok {
			sitRef[it.seg] = fmt.Sprintf("s%d", len(sitRef)+1)
			fmt.Fprintf(&user, "[%s] %s\n", sitRef[it.seg], it.situation)
		}
	}
	user.WriteString("\n")
	offers := map[string]offer{}
	for _, kind := range []store.TagType{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour} {
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
		ids := make([]string, len(cats))
		for i, c := range cats {
			ids[i] = c.ID
		}
		valences, err := r.store.CategoryValences(ctx, r.capture.UserID, ids)
		if err != nil {
			return nil, err
		}
		label := kindWords(kind)
		// Existing categories are listed by the valence of their situations,
		// so the rule that pleasant and unpleasant never share one can be
		// followed; place holds the model to it.
		fmt.Fprintf(&user, "Existing %s categories:\n", label)
		if len(cats) == 0 {
			user.WriteString("(none)\n")
		}
		n := 0
		for _, v := range []int{-1, 1, 0} {
			heading := false
			for _, c := range cats {
				if valences[c.ID] != v {
					continue
				}
				if !heading {
					fmt.Fprintf(&user, "From %s situations:\n", valenceWords[v])
					heading = true
				}
				n++
				ref := fmt.Sprintf("c%s%d", kindPrefix[kind], n)
				offers[ref] = offer{ref, c, v}
				fmt.Fprintf(&user, "[%s] %s\n", ref, c.Name)
			}
		}
		fmt.Fprintf(&user, "New %ss:\n", label)
		for _, it := range mine {
			fmt.Fprintf(&user, "[%s] %s\n  from situation %s (%s)\n", it.ref, it.name, sitRef[it.seg], valenceWords[it.valence])
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
//
// Two rules are kept here rather than refused, as asking again at
// temperature 0 would bring the same answer: an item from a pleasant
// situation never joins a category of unpleasant ones (nor the other way
// round), whether offered or founded earlier in the same answer, and
// founds a category named as itself instead; and a new name is lower case
// except for words the item or its situation capitalise where no sentence
// begins (proper names).
func (r *runner) place(content string, items []item, offers map[string]offer) (map[string]store.NewTag, error) {
	var ans categoriseAnswer
	if err := decode(content, categoriseChecks, &ans); err != nil {
		return nil, err
	}
	byRef := make(map[string]item, len(items))
	for _, it := range items {
		byRef[it.ref] = it
	}
	valence := map[string]int{} // category id -> valence, as offered or known
	for id, v := range r.catValence {
		valence[id] = v
	}
	for _, o := range offers {
		valence[o.cat.ID] = o.valence
	}
	founded := map[string]int{} // kind and lower-case new name -> valence of its items
	out := map[string]store.NewTag{}
	for _, a := range ans.Assignments {
		it, ok := byRef[strings.TrimSpace(a.Item)]
		if !ok {
			return nil, unusablef("assignment for unknown item %s", brief(a.Item))
		}
		proper := properWords(it.name, it.situation)
		for lower, word := range r.proper {
			if _, ok := proper[lower]; !ok {
				proper[lower] = word
			}
		}
		nt := store.NewTag{Type: it.kind, Name: it.name}
		o, offered := offers[strings.TrimSpace(a.Category)]
		offered = offered && o.cat.Kind == it.kind
		if offered && it.valence*o.valence >= 0 {
			nt.CategoryID = o.cat.ID
			out[it.ref] = nt
			continue
		}
		// The schema bounds new_category; spaces and case only shrink it.
		name := categoryName(a.NewCategory, proper)
		if name == "" && !offered {
			return nil, unusablef("item %s has neither an offered category nor a new name", it.ref)
		}
		c, exists := r.categoryByName(it.kind, name)
		if name == "" || founded[string(it.kind)+"\x00"+strings.ToLower(name)]*it.valence < 0 || exists && valence[c.ID]*it.valence < 0 {
			// The item founds a category named as itself, unless even
			// that name is taken.
			name = categoryName(shorten(it.name, 60), proper)
			c, exists = r.categoryByName(it.kind, name)
		}
		if key := string(it.kind) + "\x00" + strings.ToLower(name); founded[key] == 0 {
			founded[key] = it.valence
		}
		nt.NewCategory = name
		// A new name equal to an existing category (rejected ones too)
		// joins it: a rejected topic stays absorbed and left alone.
		if exists {
			nt.NewCategory, nt.CategoryID = "", c.ID
		}
		out[it.ref] = nt
	}
	if len(out) != len(items) {
		return nil, unusablef("%d of %d items placed", len(out), len(items))
	}
	return out, nil
}

// crossingName is the name a crossing item is stored under, placed as nt:
// the name of its category when no other category has a tag of that name,
// otherwise its own name with the valence of its situation, so a name
// keeps one category and the same mention finds the same tag next time.
func (r *runner) crossingName(it item, nt store.NewTag, names known) string {
	category := nt.NewCategory
	for _, c := range r.categories[it.kind] {
		if c.ID == nt.CategoryID {
			category = c.Name
		}
	}
	free := func(name string) bool {
		old, ok := names[it.kind][strings.ToLower(name)]
		return !ok || nt.CategoryID != "" && old.Category != nil && old.Category.ID == nt.CategoryID
	}
	if category != "" && free(category) {
		return category
	}
	return fmt.Sprintf("%s (%s)", it.name, valenceWords[it.valence])
}

// categoryByName finds one of the user's categories of the kind by name.
func (r *runner) categoryByName(kind store.TagType, name string) (store.Category, bool) {
	for _, c := range r.categories[kind] {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return store.Category{}, false
}
