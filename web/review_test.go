package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
)

// The review page of last week shows the pattern written three times then
// as new, leads back a week and forward to this week; this week's page
// leads nowhere forward; /review opens this week; a week that is not one,
// or has not begun, is refused; signed out, the page sends to sign-in.
func TestReviewPage(t *testing.T) {
	h := newHarness(t, nil)
	loc, err := h.store.Location(context.Background(), h.alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := h.store.Now().In(loc)
	monday := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, loc)
	monday = monday.AddDate(0, 0, -int(monday.Weekday()+6)%7-7) // of last week
	for i := range 3 {
		h.write(h.alice, "I skipped lunch.", monday.AddDate(0, 0, i),
			store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"})
	}
	h.detect(h.alice)
	last, this := notify.WeekOf(monday), notify.WeekOf(now)
	alice := h.signIn(h.alice)

	a := alice.get("/review/" + last)
	if a.status != 200 {
		t.Fatalf("last week: %d\n%s", a.status, a.body)
	}
	for _, want := range []string{`href="/review/` + notify.WeekOf(monday.AddDate(0, 0, -7)) + `" rel="prev"`, `href="/review/` + this + `" rel="next"`, "skipping meals"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("last week's page lacks %s", want)
		}
	}
	section := a.body[strings.Index(a.body, `data-testid="review-new"`):]
	if section = section[:strings.Index(section, "</section>")]; !strings.Contains(section, "skipping meals") {
		t.Errorf("the new section lacks the pattern:\n%s", section)
	}
	if a := alice.get("/review/" + this); a.status != 200 || strings.Contains(a.body, `rel="next"`) || !strings.Contains(a.body, "so far") {
		t.Errorf("this week: %d, a link forward or no \"so far\"\n%s", a.status, a.body)
	}
	if a := alice.get("/review"); a.status != 303 || a.location != "/review/"+this {
		t.Errorf("/review: %d to %q, want 303 to /review/%s", a.status, a.location, this)
	}
	for _, week := range []string{notify.WeekOf(now.AddDate(0, 0, 8)), "2026-W99", "last-week"} {
		if a := alice.get("/review/" + week); a.status != 422 {
			t.Errorf("/review/%s: %d, want 422", week, a.status)
		}
	}
	if a := h.anonymous().get("/review/" + this); a.status != 303 || a.location != "/" {
		t.Errorf("signed out: %d to %q", a.status, a.location)
	}
}
