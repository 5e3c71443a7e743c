package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// danaLoop writes, on three days before now, Dana's criticism said three
// ways, the anxiety and the staying late that follow; it returns the three
// wordings.
func (h *harness) danaLoop(now time.Time) []string {
	said := []string{"Dana questioned my estimates", "Dana picked apart my slides", "Dana criticised my report"}
	for i, trigger := range said {
		h.write(h.alice, "Dana went at my work and I stayed late.", now.AddDate(0, 0, -8+i),
			store.NewTag{Type: store.TagTrigger, Name: trigger, NewCategory: "criticism from Dana"},
			store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			store.NewTag{Type: store.TagBadBehaviour, Name: "stayed late", NewCategory: "staying late"})
	}
	return said
}

// TestLoopToldWhole: a loop's card counts, and its strip marks, the days of
// every pattern of the loop, not only its lead's; and the loop figure
// groups one-off wordings under their categories.
func TestLoopToldWhole(t *testing.T) {
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	alice := h.signIn(h.alice)
	said := h.danaLoop(now)
	// Staying late, anxious, on two more days without Dana.
	for _, d := range []int{-3, -2} {
		h.write(h.alice, "I stayed late again.", now.AddDate(0, 0, d),
			store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			store.NewTag{Type: store.TagBadBehaviour, Name: "stayed late", NewCategory: "staying late"})
	}
	h.detect(h.alice)
	list, _, err := h.store.ListPatterns(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var lead string
	for _, p := range list {
		if p.Name == "criticism from Dana" {
			lead = p.ID
		}
	}
	if lead == "" || len(list) != 2 {
		t.Fatalf("patterns = %+v, want criticism from Dana and staying late", list)
	}

	t.Run("CardCountsTheLoop", func(t *testing.T) {
		a := alice.get("/patterns")
		has(t, "patterns", a, 200, `data-pattern-id="`+lead+`"`, "staying late", "on 5 days", "Seen on 5 of the last 56 days")
	})
	t.Run("FigureGroupsByCategory", func(t *testing.T) {
		a := alice.get("/patterns/" + lead)
		has(t, "pattern", a, 200, `data-testid="flows"`, ">criticism from Dana</tspan>",
			"<title>criticism from Dana: "+strings.Join(said, "; ")+"</title>", ">staying late</tspan>")
		for _, s := range said {
			if strings.Contains(a.body, ">"+s+"</tspan>") {
				t.Errorf("the figure draws %q apart from its category", s)
			}
		}
	})
}
