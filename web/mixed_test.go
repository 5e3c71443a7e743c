package web_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestMixedFeelingsShowApart: bittersweet and nostalgic are mixed feelings,
// in a colour of their own: a wistful good day is a pleasant one in the
// calendar, a day of mixed feelings alone is marked mixed, and an entry
// shows its mixed feelings as mixed chips under their own heading.
func TestMixedFeelingsShowApart(t *testing.T) {
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	alice := h.signIn(h.alice)
	good, wistful := now.AddDate(0, 0, -3), now.AddDate(0, 0, -2)
	h.write(h.alice, "Looked at old photos with Mum and laughed.", good,
		store.NewTag{Type: store.TagTrigger, Name: "old photos", NewCategory: "old photos"},
		store.NewTag{Type: store.TagMixedFeeling, Name: "nostalgic", FeelingID: "nostalgic"},
		store.NewTag{Type: store.TagPositiveFeeling, Name: "grateful", FeelingID: "grateful"})
	id := h.write(h.alice, "Walked past my old school.", wistful,
		store.NewTag{Type: store.TagTrigger, Name: "my old school", NewCategory: "old places"},
		store.NewTag{Type: store.TagMixedFeeling, Name: "bittersweet", FeelingID: "bittersweet"},
		store.NewTag{Type: store.TagMixedFeeling, Name: "nostalgic", FeelingID: "nostalgic"})

	loc := storetest.Location(t)
	cal := alice.get("/calendar?month=" + wistful.In(loc).Format("2006-01"))
	for _, c := range []struct {
		day         time.Time
		mood, words string
	}{{good, "m2", "mostly pleasant feelings"}, {wistful, "mixed", "mostly mixed feelings"}} {
		day := c.day.In(loc).Format(time.DateOnly)
		re := regexp.MustCompile(`(?s)data-date="` + day + `"[^>]*>\s*<span class="n">\d+</span><span class="balance mood ` +
			c.mood + `" title="` + c.words + `" data-mood="` + c.mood + `">`)
		if !re.MatchString(cal.body) {
			t.Errorf("the day %s is not marked %s (%s)", day, c.mood, c.words)
		}
	}
	has(t, "calendar legend", cal, 200, `<span class="key mood mixed"></span> mostly mixed feelings`)
	has(t, "entry", alice.get("/entries/"+id), 200, "Mixed feelings",
		`<a class="chip mixed" data-feeling="bittersweet" href="/?feeling=bittersweet">bittersweet</a>`, `<a class="chip mixed" data-feeling="nostalgic" href="/?feeling=nostalgic">nostalgic</a>`)
}
