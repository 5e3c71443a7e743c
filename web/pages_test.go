package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/health"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// has fails the test unless body holds every one of want.
func has(t *testing.T, what string, a answer, status int, want ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, a.status, status, a.body)
	}
	for _, w := range want {
		if !strings.Contains(a.body, w) {
			t.Errorf("%s: the page lacks %q", what, w)
		}
	}
}

func TestSignedOut(t *testing.T) {
	h := newHarness(t, nil)
	b := h.anonymous()
	t.Run("SignInFormWithoutScript", func(t *testing.T) {
		has(t, "GET /", b.get("/"), 200, `<html lang="en"`, `<form method="post" action="/sign-in"`, `name="email"`)
	})
	t.Run("MailsLink", func(t *testing.T) {
		has(t, "POST /sign-in", b.post("/sign-in", url.Values{"email": {"alice@example.com"}}), 200, "a sign-in link is on its way")
	})
	t.Run("BadAddressIs422WithSentence", func(t *testing.T) {
		has(t, "POST /sign-in", b.post("/sign-in", url.Values{"email": {"not an address"}}), 422, `aria-invalid="true"`, "valid email address")
	})
	t.Run("PagesSendToSignIn", func(t *testing.T) {
		for _, path := range []string{"/patterns", "/calendar", "/settings", "/entries/01a20000-0000-7000-8000-000000000000"} {
			if a := b.get(path); a.status != http.StatusSeeOther || a.location != "/" {
				t.Errorf("GET %s = %d to %q, want 303 to /", path, a.status, a.location)
			}
		}
	})
	t.Run("UnknownPathIs404Page", func(t *testing.T) {
		has(t, "GET /nothing", b.get("/nothing"), 404, "Not found")
	})
}

func TestJournal(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)

	t.Run("FirstEntryPrompt", func(t *testing.T) {
		has(t, "GET /", alice.get("/"), 200, "Your first entry", `data-testid="write"`, `name="text"`, `type="search" name="q"`, `action="/sign-out"`)
	})
	t.Run("WriteWithoutScript", func(t *testing.T) {
		a := alice.post("/entries", url.Values{"text": {"The train was late again."}})
		if a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/#entry-") {
			t.Fatalf("POST /entries = %d to %q, want 303 to the entry", a.status, a.location)
		}
		id := strings.TrimPrefix(a.location, "/#entry-")
		has(t, "GET /", alice.get("/"), 200, `data-capture-id="`+id+`" data-status="queued"`, "Waiting to be read", "The train was late again.", "Today")
		if strings.Contains(bob.get("/").body, "The train was late again.") {
			t.Error("bob's journal shows alice's entry")
		}
	})
	t.Run("WritePublishesQueued", func(t *testing.T) {
		events, stop := h.events.Subscribe(h.alice.ID)
		defer stop()
		a := alice.post("/entries", url.Values{"text": {"The bus was late."}})
		id := strings.TrimPrefix(a.location, "/#entry-")
		if ev := nextCapture(t, events); ev.ID != id || ev.Status != store.StatusQueued || ev.UpdatedAt == "" {
			t.Errorf("event %+v, want %s queued with its updated_at", ev, id)
		}
		c, _ := h.store.FindCapture(context.Background(), h.alice.ID, id)
		has(t, "GET /", alice.get("/"), 200, `data-capture-id="`+id+`" data-status="queued" data-updated-at="`+store.FormatTime(c.UpdatedAt)+`"`)
	})
	t.Run("WriteAboutAnotherDay", func(t *testing.T) {
		loc := storetest.Location(t) // alice's zone
		day := h.store.Now().In(loc).AddDate(0, 0, -3).Format(time.DateOnly)
		a := alice.post("/entries", url.Values{"text": {"Three days ago."}, "date": {day}, "time": {"08:30"}})
		id := strings.TrimPrefix(a.location, "/#entry-")
		c, err := h.store.FindCapture(context.Background(), h.alice.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.OccurredAt.In(loc).Format("2006-01-02 15:04"); got != day+" 08:30" {
			t.Errorf("occurred_at = %s, want %s 08:30 in alice's zone, %s", got, day, loc)
		}
	})
	t.Run("EmptyTextIs422", func(t *testing.T) {
		has(t, "POST /entries", alice.post("/entries", url.Values{"text": {"  "}}), 422, "The text field is required.", `aria-invalid="true"`)
	})
	t.Run("BadDateIs422", func(t *testing.T) {
		has(t, "POST /entries", alice.post("/entries", url.Values{"text": {"x"}, "date": {"yesterday"}}), 422, "The date must look like")
	})
	t.Run("Search", func(t *testing.T) {
		a := alice.get("/?q=" + url.QueryEscape("TRAIN"))
		has(t, "search", a, 200, "<mark>train</mark>", `value="TRAIN"`, "Best matches first")
		if strings.Contains(a.body, "Three days ago.") {
			t.Error("search shows an entry without the words")
		}
		if strings.Contains(bob.get("/?q=train").body, "data-capture-id") {
			t.Error("bob's search finds alice's entry")
		}
	})
	t.Run("SearchFindsWordsNotLetters", func(t *testing.T) {
		// Full-text search matches words (the last as a prefix), not any
		// run of letters as a LIKE would.
		h.write(h.alice, "Strain in my back.", h.store.Now().Add(-2*time.Hour))
		if a := alice.get("/?q=rain"); strings.Contains(a.body, "Strain in my back.") || strings.Contains(a.body, "data-capture-id") {
			t.Error("searching rain finds strain")
		}
		has(t, "prefix", alice.get("/?q=stra"), 200, "<mark>Strain</mark>")
	})
	t.Run("SearchSnippetIsEscaped", func(t *testing.T) {
		h.write(h.alice, `<b onclick="x()">Lunch</b> & a <script>walk</script>`, h.store.Now().Add(-3*time.Hour))
		a := alice.get("/?q=walk")
		has(t, "search", a, 200, `&lt;script&gt;<mark>walk</mark>&lt;/script&gt;`, `&lt;b onclick=&#34;x()&#34;&gt;`)
		if strings.Contains(a.body, "<script>walk") || strings.Contains(a.body, `<b onclick`) {
			t.Error("the entry's own markup reached the page")
		}
	})
	t.Run("SearchWithoutWordsIs422", func(t *testing.T) {
		has(t, "search", alice.get("/?q="+url.QueryEscape("!!! ?")), 422, `id="search-error"`, "Type a word to search for.", `aria-invalid="true"`)
	})
	t.Run("Paged", func(t *testing.T) {
		for i := range 6 {
			h.write(h.alice, "Filler "+string(rune('a'+i)), h.store.Now().Add(-time.Duration(i+10)*24*time.Hour))
		}
		_, total, err := h.store.ListCaptures(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		pages := (total + 4) / 5 // the harness shows 5 a page
		a := alice.get("/")
		has(t, "page 1", a, 200, fmt.Sprintf("Page 1 of %d", pages), `href="/?page=2"`)
		has(t, "page 2", alice.get("/?page=2"), 200, fmt.Sprintf("Page 2 of %d", pages), `href="/?page=1"`)
	})
}

func TestEntry(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	id := h.write(h.alice, "My boss criticised my report.", h.store.Now().Add(-time.Hour),
		store.NewTag{Type: store.TagTrigger, Name: "criticism", NewCategory: "criticism"},
		store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
		store.NewTag{Type: store.TagPerson, Name: "Lea"})

	t.Run("Shown", func(t *testing.T) {
		has(t, "GET entry", alice.get("/entries/"+id), 200, `<mark class="situation">My boss criticised my report.</mark>`,
			`class="chip unpleasant`, ">anxious<", ">Lea<", "What set it off", `data-status="processed"`)
	})
	t.Run("AnotherUsersIs404", func(t *testing.T) {
		has(t, "bob GET", bob.get("/entries/"+id), 404, "Not found")
		has(t, "bob edit", bob.post("/entries/"+id, url.Values{"text": {"mine"}, "date": {"2026-01-01"}}), 404)
		has(t, "bob delete", bob.post("/entries/"+id+"/delete", url.Values{"confirm": {"yes"}}), 404)
		has(t, "bob retry", bob.post("/entries/"+id+"/retry", nil), 404)
		if c, err := h.store.FindCapture(context.Background(), h.alice.ID, id); err != nil || c.Original != "My boss criticised my report." {
			t.Fatalf("alice's entry after bob's tries: %v %v", c, err)
		}
	})
	t.Run("EditQueuesAgain", func(t *testing.T) {
		// Today in the writer's zone (RECUR_TEST_TIMEZONE), where the page
		// reads the date: a later day is refused as in the future.
		day := h.store.Now().In(storetest.Location(t)).Format(time.DateOnly)
		a := alice.post("/entries/"+id, url.Values{"text": {"My boss praised my report."}, "date": {day}, "time": {"07:15"}})
		if a.status != http.StatusSeeOther || a.location != "/entries/"+id {
			t.Fatalf("edit = %d to %q", a.status, a.location)
		}
		c, _ := h.store.FindCapture(context.Background(), h.alice.ID, id)
		if c.Original != "My boss praised my report." || c.Status != store.StatusQueued {
			t.Errorf("after edit: %q %s, want the new text, queued", c.Original, c.Status)
		}
		has(t, "edit empty", alice.post("/entries/"+id, url.Values{"text": {""}, "date": {day}}), 422, "The text field is required.")
	})
	t.Run("EditPublishesQueued", func(t *testing.T) {
		events, stop := h.events.Subscribe(h.alice.ID)
		defer stop()
		c, _ := h.store.FindCapture(context.Background(), h.alice.ID, id)
		date := c.OccurredAt.Format(time.DateOnly)
		alice.post("/entries/"+id, url.Values{"text": {"My boss thanked me for my report."}, "date": {date}, "time": {c.OccurredAt.Format("15:04")}})
		if ev := nextCapture(t, events); ev.ID != id || ev.Status != store.StatusQueued {
			t.Errorf("event %+v, want %s queued", ev, id)
		}
		a := alice.get("/entries/" + id)
		has(t, "entry after edit", a, 200, "My boss thanked me for my report.", "Found before the entry was changed", ">anxious<")
		if strings.Contains(a.body, `class="situation"`) {
			t.Error("the old text's situations are marked in the changed text")
		}
		// The same text again is no change: nothing is queued or told.
		alice.post("/entries/"+id, url.Values{"text": {"My boss thanked me for my report."}, "date": {date}, "time": {c.OccurredAt.Format("15:04")}})
		select {
		case ev := <-events:
			t.Errorf("the same text again published %+v", ev)
		default:
		}
	})
	t.Run("EditWithoutDateKeepsTheMoment", func(t *testing.T) {
		before, _ := h.store.FindCapture(context.Background(), h.alice.ID, id)
		alice.post("/entries/"+id, url.Values{"text": {"My boss thanked me twice."}})
		after, _ := h.store.FindCapture(context.Background(), h.alice.ID, id)
		if !after.OccurredAt.Equal(before.OccurredAt) || after.Original != "My boss thanked me twice." {
			t.Errorf("after an edit without date: %s %q, want %s kept", after.OccurredAt, after.Original, before.OccurredAt)
		}
	})
	t.Run("DeleteNeedsConfirmation", func(t *testing.T) {
		has(t, "delete without confirm", alice.post("/entries/"+id+"/delete", nil), 422, "second button")
		a := alice.post("/entries/"+id+"/delete", url.Values{"confirm": {"yes"}})
		if a.status != http.StatusSeeOther {
			t.Fatalf("delete = %d", a.status)
		}
		has(t, "deleted", alice.get("/entries/"+id), 404)
	})
	t.Run("FailedOffersTryAgain", func(t *testing.T) {
		failed := h.write(h.alice, "An entry the model could not read.", h.store.Now().Add(-time.Hour))
		if _, err := h.store.ClaimCapture(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := h.store.FailCapture(context.Background(), failed); err != nil {
			t.Fatal(err)
		}
		has(t, "journal", alice.get("/"), 200, `data-status="failed"`, "Could not be read", `action="/entries/`+failed+`/retry"`, "Try again")
		events, stop := h.events.Subscribe(h.alice.ID)
		defer stop()
		a := alice.post("/entries/"+failed+"/retry", nil)
		if a.status != http.StatusSeeOther {
			t.Fatalf("retry = %d", a.status)
		}
		if ev := nextCapture(t, events); ev.ID != strings.TrimPrefix(a.location, "/#entry-") || ev.Status != store.StatusQueued {
			t.Errorf("event %+v, want the new entry %s queued", ev, a.location)
		}
		list, _, _ := h.store.ListCaptures(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10})
		if len(list) != 1 || list[0].Original != "An entry the model could not read." || list[0].Status != store.StatusQueued {
			t.Errorf("after try again: %+v, want the text queued once", list)
		}
	})
}

func TestPatterns(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)

	t.Run("NoneSaysWhatItTakes", func(t *testing.T) {
		h.write(h.alice, "One day.", h.store.Now().Add(-time.Hour), store.NewTag{Type: store.TagPerson, Name: "Lea"})
		// The page says what the API's feature lock says, in its words.
		lock, err := journal.FindFeatureLock(context.Background(), h.store, h.alice.ID, journal.LockPatterns, "")
		if err != nil {
			t.Fatal(err)
		}
		has(t, "patterns", alice.get("/patterns"), 200, "No patterns yet", "so write on 2 more", lock.Reason,
			fmt.Sprintf(`<progress id="lock-progress" value="%d" max="%d">`, lock.Current, lock.Required))
	})
	id := h.lunchPattern(h.alice)
	// Criticism and skipping meals rest on the same situations: a loop.
	var lead string
	list, _, _ := h.store.ListPatterns(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10})
	for _, p := range list {
		if p.Name == "criticism" {
			lead = p.ID
		}
	}
	t.Run("Card", func(t *testing.T) {
		a := alice.get("/patterns")
		has(t, "patterns", a, 200, `data-pattern-id="`+lead+`" data-state="open"`, "criticism",
			`action="/patterns/`+lead+`"`, `name="status" value="accepted"`, `name="status" value="rejected"`, "leaves this topic alone", `<svg class="strip"`, "on 3 days",
			`then:</span> <a href="/patterns/`+id+`">skipping meals</a>`)
		if strings.Contains(a.body, `data-pattern-id="`+id+`"`) {
			t.Error("skipping meals has a card of its own, want it on the card of its loop")
		}
		if strings.Contains(bob.get("/patterns").body, id) {
			t.Error("bob sees alice's pattern")
		}
	})
	t.Run("Page", func(t *testing.T) {
		a := alice.get("/patterns/" + id)
		has(t, "pattern", a, 200, `data-testid="flows"`, "criticism", "anxious", "association, not a cause",
			`Part of a loop with <a href="/patterns/`+lead+`">criticism</a>`)
		if strings.Contains(a.body, "data-correlation-id") && !strings.Contains(a.body, "of your 2 days with Lea") {
			t.Error("a correlation without its sample")
		}
	})
	t.Run("AnotherUsersIs404", func(t *testing.T) {
		has(t, "bob GET", bob.get("/patterns/"+id), 404)
		has(t, "bob accept", bob.post("/patterns/"+id, url.Values{"status": {"accepted"}}), 404)
	})
	t.Run("Accept", func(t *testing.T) {
		a := alice.post("/patterns/"+id, url.Values{"status": {"accepted"}})
		if a.status != http.StatusSeeOther || a.location != "/patterns" {
			t.Fatalf("accept = %d to %q", a.status, a.location)
		}
		if p, _ := h.store.FindPattern(context.Background(), h.alice.ID, id); p.Status != store.PatternAccepted {
			t.Errorf("status = %s, want accepted", p.Status)
		}
		has(t, "accepted", alice.get("/patterns/"+id), 200, "Accepted")
	})
	t.Run("RejectNeedsConfirmation", func(t *testing.T) {
		has(t, "reject", alice.post("/patterns/"+id, url.Values{"status": {"rejected"}}), 422, "second button")
		has(t, "other status", alice.post("/patterns/"+id, url.Values{"status": {"maybe"}}), 422, "accepted or rejected")
		has(t, "restore an accepted one", alice.post("/patterns/"+id, url.Values{"status": {"detected"}}), 422, "Only a rejected pattern goes back")
		alice.post("/patterns/"+id, url.Values{"status": {"rejected"}, "confirm": {"yes"}, "back": {"pattern"}})
		if p, _ := h.store.FindPattern(context.Background(), h.alice.ID, id); p.Status != store.PatternRejected {
			t.Errorf("status = %s, want rejected", p.Status)
		}
		list := alice.get("/patterns").body
		if strings.Contains(list, `data-pattern-id="`+id+`" data-state="open"`) || strings.Contains(list, `data-pattern-id="`+id+`" data-state="closed"`) {
			t.Error("a rejected pattern is listed among the cards")
		}
		if !strings.Contains(list, `data-pattern-id="`+id+`" data-state="rejected"`) {
			t.Error("a rejected pattern cannot be found again on the patterns page")
		}
	})
	t.Run("RestoreRejected", func(t *testing.T) {
		if a := alice.post("/patterns/"+id, url.Values{"status": {"detected"}, "back": {"list"}}); a.status != http.StatusSeeOther {
			t.Fatalf("restore = %d\n%s", a.status, a.body)
		}
		if p, _ := h.store.FindPattern(context.Background(), h.alice.ID, id); p.Status != store.PatternDetected {
			t.Errorf("status = %s, want detected", p.Status)
		}
		restored := alice.get("/patterns")
		has(t, "restored", restored, 200, `href="/patterns/`+id+`"`)
		if strings.Contains(restored.body, `data-pattern-id="`+id+`" data-state="rejected"`) {
			t.Error("a restored pattern is still among the rejected")
		}
		if a := alice.post("/patterns/"+id, url.Values{"status": {"detected"}}); a.status != http.StatusSeeOther {
			t.Errorf("restoring a detected pattern again = %d, want nothing changed", a.status)
		}
	})
}

func TestCalendar(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)
	h.lunchPattern(h.alice)
	// The day of the pattern's entry two days back, in the writer's zone
	// (RECUR_TEST_TIMEZONE), where the calendar shows it: the entry a day
	// back may fall on the writer's today, which the calendar marks too.
	when := h.store.Now().UTC().Truncate(24*time.Hour).Add(12*time.Hour).AddDate(0, 0, -2).In(storetest.Location(t))
	day := when.Format(time.DateOnly)
	t.Run("Month", func(t *testing.T) {
		a := alice.get("/calendar?month=" + when.Format("2006-01"))
		has(t, "month", a, 200, `data-date="`+day+`"`, `class="dot negative"`, "skipping meals")
		if strings.Contains(bob.get("/calendar?month="+when.Format("2006-01")).body, "skipping meals") {
			t.Error("bob's calendar shows alice's pattern")
		}
	})
	t.Run("Year", func(t *testing.T) {
		has(t, "year", alice.get("/calendar?year="+when.Format("2006")), 200, `data-date="`+day+`" class="mood m-2"`)
	})
	t.Run("BadMonthIs422", func(t *testing.T) {
		has(t, "bad month", alice.get("/calendar?month=2026-13"), 422, "The month must look like")
		has(t, "bad year", alice.get("/calendar?year=x"), 422, "The year must be")
	})
}

// down is a health reporter whose Ollama does not answer.
type down struct{}

func (down) QueueHealth(context.Context) (health.QueueHealth, error) {
	return health.QueueHealth{}, nil
}
func (down) OllamaHealth(context.Context) health.OllamaHealth {
	return health.OllamaHealth{Model: "qwen2.5:7b", Error: "Ollama does not answer at http://127.0.0.1:11434. Start it with `ollama serve`."}
}

func TestOllamaBanner(t *testing.T) {
	h := newHarness(t, down{})
	has(t, "banner", h.signIn(h.alice).get("/"), 200, `data-testid="ollama-banner"`, "<code>ollama serve</code>", "Ollama does not answer")
	if strings.Contains(h.anonymous().get("/").body, "ollama-banner") {
		t.Error("the sign-in page tells strangers about Ollama")
	}
	if well := newHarness(t, nil); strings.Contains(well.signIn(well.alice).get("/").body, "ollama-banner") {
		t.Error("a banner without a problem")
	}
}

func TestCrossOriginFormRefused(t *testing.T) {
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	req, _ := http.NewRequest("POST", h.srv.URL+"/entries", strings.NewReader("text=forged"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if a := b.send(req); a.status != http.StatusForbidden {
		t.Fatalf("cross-origin POST /entries = %d, want 403", a.status)
	}
	if list, _, _ := h.store.ListCaptures(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 5}); len(list) != 0 {
		t.Error("a forged form wrote an entry")
	}
}

func TestSignOut(t *testing.T) {
	h := newHarness(t, nil)
	b := h.signIn(h.alice)
	if a := b.post("/sign-out", nil); a.status != http.StatusSeeOther {
		t.Fatalf("sign out = %d", a.status)
	}
	has(t, "after sign-out", b.get("/"), 200, "Email me a sign-in link")
}
