package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/health"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
	"github.com/recur-journal/recur/web"
)

// TestMain hashes the tests' passwords cheaply: the pages' sign-in is
// tested here, the hash in store.
func TestMain(m *testing.M) {
	storetest.CheapPasswords()
	os.Exit(m.Run())
}

// harness is the API server with the web app mounted, over a real SQLite
// file, with two users.
type harness struct {
	t          testing.TB
	store      *store.Store
	srv        *httptest.Server
	alice, bob *store.User
	events     *journal.Events // what the pages publish, as the API's stream sends it
	mail       *mailbox        // the mail the server sends
}

func newHarness(t testing.TB, reporter health.Reporter) *harness {
	t.Helper()
	return newHarnessAt(t, reporter, nil)
}

// newHarnessAt is newHarness with the store's clock now (nil: time.Now).
func newHarnessAt(t testing.TB, reporter health.Reporter, now func() time.Time) *harness {
	t.Helper()
	s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "recur.db"), now)
	h := &harness{t: t, store: s, srv: httptest.NewServer(nil), events: journal.NewEvents(), mail: &mailbox{ch: make(chan mail.Message, 16)}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	api := server.New(server.Options{Store: s, Logger: log, BaseURL: h.srv.URL, Secret: []byte("0123456789abcdef0123456789abcdef"),
		Health: reporter, Events: h.events, Mailer: h.mail})
	api.Mount(web.New(web.Options{Store: s, Accounts: api.Accounts(), Health: reporter, Logger: log, PageSize: 5, Events: h.events}))
	h.srv.Config.Handler = api.Handler()
	api.Start()
	t.Cleanup(api.Stop)
	t.Cleanup(h.srv.Close)
	h.alice = storetest.MustCreateUser(t, s, "alice@example.com")
	h.bob = storetest.MustCreateUser(t, s, "bob@example.com")
	storetest.InTestZone(t, s, h.alice)
	storetest.InTestZone(t, s, h.bob)
	return h
}

// browser is a client with its own cookies, as a browser with JavaScript
// off would send forms: same-origin, no redirects followed.
type browser struct {
	h      *harness
	client *http.Client
}

// signIn opens a signed sign-in link for u, as the mailed link does, and
// returns the signed-in browser.
func (h *harness) signIn(u *store.User) *browser {
	h.t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browser{h: h, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	req, _ := http.NewRequest("POST", h.srv.URL+"/api/magic-links/me", strings.NewReader(`{"path":"/"}`))
	req.Header.Set("Authorization", "Bearer "+storetest.MustCreateToken(h.t, h.store, u.ID))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	var link struct{ Data struct{ URL string } }
	json.NewDecoder(res.Body).Decode(&link)
	res.Body.Close()
	if link.Data.URL == "" {
		h.t.Fatalf("no sign-in link: %d", res.StatusCode)
	}
	if got := b.get(link.Data.URL); got.status != http.StatusFound {
		h.t.Fatalf("sign-in link answered %d", got.status)
	}
	return b
}

// anonymous is a browser nobody signed in on.
func (h *harness) anonymous() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{h: h, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status   int
	body     string
	location string
}

func (b *browser) send(req *http.Request) answer {
	b.h.t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		b.h.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, body: string(body), location: res.Header.Get("Location")}
}

func (b *browser) get(path string) answer {
	if strings.HasPrefix(path, "/") {
		path = b.h.srv.URL + path
	}
	req, _ := http.NewRequest("GET", path, nil)
	return b.send(req)
}

// post sends a form as a browser does from one of the app's own pages.
func (b *browser) post(path string, form url.Values) answer {
	req, _ := http.NewRequest("POST", b.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.h.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.send(req)
}

// write gives u a processed capture at when with one segment holding tags.
func (h *harness) write(u *store.User, text string, when time.Time, tags ...store.NewTag) string {
	h.t.Helper()
	ctx := context.Background()
	c := &store.Capture{UserID: u.ID, Original: text, OccurredAt: when}
	if err := h.store.CreateCapture(ctx, c); err != nil {
		h.t.Fatal(err)
	}
	if len(tags) == 0 {
		return c.ID
	}
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: text, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(text), Tags: tags}}}); err != nil {
		h.t.Fatal(err)
	}
	return c.ID
}

func (h *harness) detect(u *store.User) {
	h.t.Helper()
	if err := detect.NewDetector(h.store, nil).Detect(context.Background(), u.ID); err != nil {
		h.t.Fatal(err)
	}
}

// lunchPattern gives u a pattern (skipping meals, anxious) seen on the three
// days before now, with Lea on two of them, and returns its id.
func (h *harness) lunchPattern(u *store.User) string {
	h.t.Helper()
	noon := h.store.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	for _, d := range []int{1, 2, 3} {
		tags := []store.NewTag{
			{Type: store.TagTrigger, Name: "criticism", NewCategory: "criticism"},
			{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"},
		}
		if d != 3 {
			tags = append(tags, store.NewTag{Type: store.TagPerson, Name: "Lea"})
		}
		h.write(u, "My boss criticised my report and I skipped lunch.", noon.AddDate(0, 0, -d), tags...)
	}
	h.detect(u)
	list, _, err := h.store.ListPatterns(context.Background(), u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) == 0 {
		h.t.Fatalf("no pattern detected: %v", err)
	}
	for _, p := range list {
		if p.Name == "skipping meals" {
			return p.ID
		}
	}
	return list[0].ID
}

// nextCapture returns the capture event waiting on events: a page's
// change is published before the page answers, so it is there already.
func nextCapture(t *testing.T, events <-chan journal.Event) journal.CaptureEvent {
	t.Helper()
	select {
	case ev := <-events:
		c, ok := ev.Data.(journal.CaptureEvent)
		if !ok {
			t.Fatalf("event %s, want a capture", ev.Type)
		}
		return c
	default:
		t.Fatal("no capture event was published")
	}
	return journal.CaptureEvent{}
}
