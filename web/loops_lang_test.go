package web_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// The loop figure speaks the reader's language: every group it draws is
// named in it once the pipeline has named the categories the pages show,
// the categories of a loop's triggers and behaviours among them even when
// they are no pattern of their own; and no node or tooltip lists the
// English wordings analysis grouped under it.
func TestLoopFigureSpeaksTheReadersLanguage(t *testing.T) {
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	said := h.danaLoop(now)
	// Once only: mocked, anxious, staying late; mockery is no pattern.
	h.write(h.alice, "Dana mocked my accent and I stayed late.", now.AddDate(0, 0, -3),
		store.NewTag{Type: store.TagTrigger, Name: "Dana mocked my accent", NewCategory: "mockery"},
		store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
		store.NewTag{Type: store.TagBadBehaviour, Name: "stayed late", NewCategory: "staying late"})
	h.detect(h.alice)
	h.setLocale(h.alice, "de")
	ctx := context.Background()
	list, err := h.store.CategoriesToName(ctx, h.alice.ID, "de")
	if err != nil {
		t.Fatal(err)
	}
	german := map[string]string{"criticism from Dana": "Kritik von Dana", "staying late": "lange bleiben", "mockery": "Spott"}
	var asked []string
	for _, c := range list {
		asked = append(asked, c.Name)
		if err := h.store.SetCategoryName(ctx, c.ID, "de", c.Name, german[c.Name]); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Contains(asked, "mockery") {
		t.Fatalf("the categories to name in German are %q: the loop's trigger mockery is not among them", asked)
	}
	patterns, _, err := h.store.ListPatterns(ctx, h.alice.ID, store.Page{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	b := h.signIn(h.alice)
	figures := regexp.MustCompile(`(?s)<svg data-testid="flows.*?</svg>`)
	for _, p := range patterns {
		got := b.get("/patterns/" + p.ID)
		figure := strings.Join(figures.FindAllString(got.body, -1), "")
		if figure == "" {
			t.Fatalf("%s: no loop figure", p.Name)
		}
		for _, english := range append(said, "Dana mocked my accent", "stayed late", "criticism from Dana", "staying late", "mockery") {
			if strings.Contains(figure, english) {
				t.Errorf("%s: the loop figure shows the English %q", p.Name, english)
			}
		}
		if !strings.Contains(figure, ">lange bleiben</tspan>") || (p.Name == "staying late" && !strings.Contains(figure, ">Spott</tspan>")) {
			t.Errorf("%s: the loop figure lacks its groups' German names:\n%s", p.Name, figure)
		}
	}
	// An English reader still reads the wordings each group gathers.
	h.setLocale(h.alice, "en")
	for _, p := range patterns {
		if p.Name == "criticism from Dana" {
			mustHave(t, b.get("/patterns/"+p.ID), 200, "<title>criticism from Dana: "+strings.Join(said, "; ")+"</title>")
		}
	}
}
