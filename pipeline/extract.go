package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/recur-journal/recur/store"
)

// reading is what the extract step reads an entry with: the feelings
// vocabulary, the writer's names, and the prompt's header offering them.
type reading struct {
	feelings []store.Feeling
	byName   map[string]store.Feeling
	names    known
	header   string
}

// prepare reads the vocabulary and the writer's names and categories for
// the extract step over text, and writes the header that offers them.
func (r *runner) prepare(ctx context.Context, text string) (*reading, error) {
	feelings, err := r.store.Feelings(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]store.Feeling, len(feelings))
	for _, f := range feelings {
		byName[f.Name] = f
	}
	existing, err := r.writerTags(ctx, store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour,
		store.TagPerson, store.TagLocation, store.TagActivity)
	if err != nil {
		return nil, err
	}
	names := knownOf(existing)
	// A category's name is a name the writer has too: an item given it
	// joins that category, as an item named as one of its tags does.
	r.categories = map[store.TagType][]store.Category{}
	for _, kind := range []store.TagType{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour} {
		if r.categories[kind], err = r.store.Categories(ctx, r.capture.UserID, kind); err != nil {
			return nil, err
		}
		for _, c := range r.categories[kind] {
			if _, ok := names[kind][strings.ToLower(c.Name)]; !ok {
				names.add(&store.Tag{Type: kind, Name: c.Name, Category: &c})
			}
		}
	}
	// Only the names nearest to the entry are offered, so the prompt does
	// not grow with the journal; any existing name the answer uses still
	// takes the user's spelling (names holds them all).
	perType, err := r.offeredNames(ctx, text, existing)
	if err != nil {
		return nil, err
	}
	var header strings.Builder
	header.WriteString("Names the writer already uses:\n")
	for _, typ := range nameTypes {
		list := "(none)"
		if len(perType[typ]) > 0 {
			list = strings.Join(perType[typ], "; ")
		}
		fmt.Fprintf(&header, "%s: %s\n", kindsWords(typ), list)
	}
	return &reading{feelings: feelings, byName: byName, names: names, header: header.String()}, nil
}

// writerTags returns the writer's tags of the given types as store.Tags does:
// from the names kept between runs when there are, which reads only those
// changed since.
func (r *runner) writerTags(ctx context.Context, types ...store.TagType) ([]store.Tag, error) {
	if r.tags != nil {
		return r.store.CachedTags(ctx, r.tags, r.capture.UserID, types...)
	}
	return r.store.Tags(ctx, r.capture.UserID, types...)
}

// extract finds the tags of each segment and gives every trigger and
// behaviour its category, asking the model to categorise the new ones.
func (r *runner) extract(ctx context.Context, text string, spans []span) ([][]store.NewTag, error) {
	x, err := r.prepare(ctx, text)
	if err != nil {
		return nil, err
	}
	schema := extractSchema(x.feelings)
	var tags [][]store.NewTag
	err = r.call(ctx, StepExtract, ChatRequest{System: extractSystem(x.feelings, schema), User: x.header + "\nSituations:\n" + numbered(text, spans),
		Schema: schema, MaxTokens: 250*len(spans) + 100}, func(content string) error {
		var err error
		tags, err = acceptExtract(content, schema, len(spans), x.byName, x.names)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.settle(ctx, text, spans, tags, x.names)
}

// settle gives every trigger and behaviour of the segments' tags its
// category: a name the writer has keeps its own, the others are asked of
// the model, all in one call.
func (r *runner) settle(ctx context.Context, text string, spans []span, tags [][]store.NewTag, names known) ([][]store.NewTag, error) {
	untwin(tags)

	// Triggers and behaviours the user already has keep their category,
	// the others go to the model, all in one call,
	// unless that category's situations all had the other valence.
	var reused []string
	for _, seg := range tags {
		for _, t := range seg {
			if old, ok := names[t.Type][strings.ToLower(t.Name)]; ok && store.Categorised(t.Type) && old.Category != nil {
				reused = append(reused, old.Category.ID)
			}
		}
	}
	var err error
	if r.catValence, err = r.store.CategoryValences(ctx, r.capture.UserID, reused); err != nil {
		return nil, err
	}
	for _, seg := range tags {
		valence := valenceOf(seg)
		for j, t := range seg {
			if crossing, has := crosses(t, valence, names, r.catValence); has && !crossing {
				seg[j].CategoryID = names[t.Type][strings.ToLower(t.Name)].Category.ID
			}
		}
	}
	items, refs := newItems(text, spans, tags, names, r.catValence)
	if len(items) == 0 {
		return tags, nil
	}
	var people []store.NewTag
	for _, typ := range []store.TagType{store.TagPerson, store.TagLocation} {
		for _, t := range names[typ] {
			people = append(people, store.NewTag{Type: t.Type, Name: t.Name})
		}
	}
	for _, seg := range tags {
		people = append(people, seg...)
	}
	r.proper = knownProperWords(people)
	placed, err := r.categorise(ctx, items)
	if err != nil {
		return nil, err
	}
	byRef := make(map[string]item, len(items))
	for _, it := range items {
		byRef[it.ref] = it
	}
	for _, seg := range tags {
		valence := valenceOf(seg)
		for j, t := range seg {
			crossing, _ := crosses(t, valence, names, r.catValence)
			ref, ok := refs[itemKey(t, crossing)]
			if !ok {
				continue
			}
			seg[j].CategoryID, seg[j].NewCategory = placed[ref].CategoryID, placed[ref].NewCategory
			if crossing {
				seg[j].Name = r.crossingName(byRef[ref], placed[ref], names)
			}
		}
	}
	return tags, nil
}
