package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recur-journal/recur/store"
)

func assignments(pairs ...[3]string) string {
	var list []map[string]string
	for _, p := range pairs {
		list = append(list, map[string]string{"item": p[0], "category": p[1], "new_category": p[2]})
	}
	b, _ := json.Marshal(map[string]any{"assignments": list})
	return string(b)
}

// A new category's name is lower case, but a word the item or its
// situation capitalises where no sentence begins keeps its capitals.
func TestPlaceKeepsProperNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, item, situation, answer, want string
	}{
		{"FromSituation", "a last-minute request", "At six Jonas sent a last-minute request. I stayed late.", "Requests From JONAS", "requests from Jonas"},
		{"FromItem", "brunch with Mika", "Brunch was fun.", "brunch with mika", "brunch with Mika"},
		{"SentenceInitialIsNoName", "a long queue", "Queues again. Long ones.", "Queues At The Shop", "queues at the shop"},
		{"Possessive", "Jonas's deadline", "Then Jonas's deadline moved.", "jonas's deadlines", "Jonas's deadlines"},
		// Mika and Dad only begin sentences here, but the writer has them
		// as a person and a place with capitals; "the" is no name.
		{"KnownPerson", "Mika cooking", "Mika cooked dinner. It was good.", "cooking with mika", "cooking with Mika"},
		{"KnownPersonAndPlace", "Dad calling about the farm", "Dad called. The farm again.", "calls from dad about the farm at the lakes", "calls from Dad about the farm at the Lakes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &runner{categories: map[store.TagType][]store.Category{},
				proper: knownProperWords([]store.NewTag{{Type: store.TagPerson, Name: "Mika"}, {Type: store.TagPerson, Name: "Dad"},
					{Type: store.TagLocation, Name: "the Lakes"}, {Type: store.TagActivity, Name: "Running"}})}
			items := []item{{ref: "t1", kind: store.TagTrigger, name: c.item, situation: c.situation}}
			placed, err := r.place(assignments([3]string{"t1", "", c.answer}), items, map[string]offer{})
			if err != nil {
				t.Fatal(err)
			}
			if got := placed["t1"].NewCategory; got != c.want {
				t.Fatalf("new category %q, want %q", got, c.want)
			}
		})
	}
}

// Pleasant and unpleasant situations never share a category: not an
// offered one, not one founded earlier in the same answer. The item founds
// a category named as itself instead. Mixed or unknown valence joins.
func TestPlaceKeepsValencesApart(t *testing.T) {
	t.Parallel()
	work := store.Category{ID: "c-work", Kind: store.TagTrigger, Name: "criticism at work"}
	calls := store.Category{ID: "c-calls", Kind: store.TagTrigger, Name: "calls from Mum"}
	offers := map[string]offer{"ct1": {"ct1", work, -1}, "ct2": {"ct2", calls, 0}}
	r := &runner{categories: map[store.TagType][]store.Category{store.TagTrigger: {work, calls}}}
	items := []item{
		{ref: "t1", kind: store.TagTrigger, name: "praise from my boss", situation: "My boss praised the report.", valence: 1},
		{ref: "t2", kind: store.TagTrigger, name: "a call from Mum", situation: "Mum called. Lovely chat.", valence: 1},
		{ref: "t3", kind: store.TagTrigger, name: "a quick review", valence: -1},
		{ref: "t4", kind: store.TagTrigger, name: "a sunny walk", valence: 1},
		{ref: "t5", kind: store.TagTrigger, name: "a rainy walk", valence: -1},
		{ref: "t6", kind: store.TagTrigger, name: "a kind note", valence: 1},
	}
	placed, err := r.place(assignments(
		[3]string{"t1", "ct1", ""}, [3]string{"t2", "ct2", ""}, [3]string{"t3", "ct1", ""},
		[3]string{"t4", "", "walks"}, [3]string{"t5", "", "Walks"}, [3]string{"t6", "", "Criticism at work"},
	), items, offers)
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]store.NewTag{
		"t1": {NewCategory: "praise from my boss"},
		"t2": {CategoryID: "c-calls"},
		"t3": {CategoryID: "c-work"},
		"t4": {NewCategory: "walks"},
		"t5": {NewCategory: "a rainy walk"},
		"t6": {NewCategory: "a kind note"},
	} {
		if got := placed[ref]; got.CategoryID != want.CategoryID || got.NewCategory != want.NewCategory {
			t.Errorf("%s placed in %q / new %q, want %q / new %q", ref, got.CategoryID, got.NewCategory, want.CategoryID, want.NewCategory)
		}
	}
}

// The situation shown with an item is bounded, cut at a space.
func TestNewItemsSituation(t *testing.T) {
	t.Parallel()
	text := "Mum called about Christmas. " + strings.Repeat("I listened and said little about it all. ", 10)
	spans := []span{{0, len(text)}}
	tags := [][]store.NewTag{{
		{Type: store.TagTrigger, Name: "mum asking about christmas"},
		{Type: store.TagNegativeFeeling, Name: "guilty", FeelingID: "guilty"},
	}}
	items, refs := newItems(text, spans, tags, known{}, nil)
	if len(items) != 1 || refs[string(store.TagTrigger)+"\x00mum asking about christmas"] != "t1" {
		t.Fatalf("items %+v, refs %v", items, refs)
	}
	s := items[0].situation
	if n := utf8.RuneCountInString(s); n > situationChars || !strings.HasPrefix(s, "Mum called about Christmas. I listened") || !strings.HasSuffix(s, "…") {
		t.Fatalf("situation of %d characters: %q", n, s)
	}
	if strings.HasSuffix(s, " …") || strings.Contains(strings.TrimSuffix(s, "…"), "…") {
		t.Fatalf("situation not cut at a word: %q", s)
	}
	if items[0].valence != -1 {
		t.Fatalf("valence %d, want -1 (guilty)", items[0].valence)
	}
}

// Items of one situation share it, printed once; a long situation is shown
// around the part the item is about, not cut before it.
func TestNewItemsShareTheirSituation(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("The morning was slow and the coffee was cold again. ", 8) + "Then my boss criticised my report. I skipped lunch."
	spans := []span{{0, len(text)}}
	tags := [][]store.NewTag{{
		{Type: store.TagTrigger, Name: "criticism from my boss"},
		{Type: store.TagBadBehaviour, Name: "skipped lunch"},
		{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
	}}
	items, _ := newItems(text, spans, tags, known{}, nil)
	if len(items) != 2 || items[0].seg != items[1].seg {
		t.Fatalf("items %+v, want two of one situation", items)
	}
	s := items[0].situation
	if n := utf8.RuneCountInString(s); n > situationChars || !strings.Contains(s, "my boss criticised my report") || !strings.HasPrefix(s, "…") {
		t.Fatalf("situation of %d characters, not around the criticism: %q", n, s)
	}
}
