package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/recur-journal/recur/store"
)

// tenYears gives alice an entry a day for ten years, each read, with a
// trigger, a feeling and a behaviour from a handful, so patterns form.
func tenYears(b *testing.B, h *harness) {
	b.Helper()
	triggers := []string{"criticism", "late train", "deadline", "noise", "argument"}
	feelings := []store.NewTag{
		{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
		{Type: store.TagPositiveFeeling, Name: "calm", FeelingID: "calm"},
	}
	start := h.store.Now().UTC().AddDate(-10, 0, 0)
	for d := 0; d < 3650; d++ {
		h.write(h.alice, fmt.Sprintf("Day %d: something happened and I reacted.", d), start.AddDate(0, 0, d),
			store.NewTag{Type: store.TagTrigger, Name: triggers[d%len(triggers)], NewCategory: triggers[d%len(triggers)]},
			feelings[d%len(feelings)],
			store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"})
	}
	h.detect(h.alice)
}

// BenchmarkPages renders /, /patterns, a year and a year of feelings of a
// ten-year journal (the target is under 100 ms each) and reports each
// page's size with its assets.
func BenchmarkPages(b *testing.B) {
	h := newHarness(b, nil)
	tenYears(b, h)
	browser := h.signIn(h.alice)
	for _, path := range []string{"/", "/patterns", "/calendar?year=" + h.store.Now().Format("2006"), "/feelings?months=12"} {
		b.Run(path, func(b *testing.B) {
			a := browser.get(path)
			if a.status != http.StatusOK {
				b.Fatalf("GET %s = %d", path, a.status)
			}
			css, js := browser.get("/static/style.css"), browser.get("/static/app.js")
			b.ResetTimer()
			for range b.N {
				browser.get(path)
			}
			b.ReportMetric(float64(len(a.body)+len(css.body)+len(js.body))/1024, "KB-with-assets")
		})
	}
}
