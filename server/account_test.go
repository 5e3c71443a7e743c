package server_test

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// analysed gives u a processed capture at when, its whole translation one
// segment holding tags, and returns it.
func analysed(t *testing.T, h *harness, u *store.User, when time.Time, original, translated, lang string, tags ...store.NewTag) *store.Capture {
	t.Helper()
	ctx := context.Background()
	c := &store.Capture{UserID: u.ID, Original: original, OccurredAt: when}
	if err := h.store.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: translated, Language: lang,
		Segments: []store.AnalysedSegment{{Start: 0, End: len(translated), Tags: tags}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// journalOf gives u a pattern ("deadlines", three days anxious, with Ana)
// and its entries, three quiet days before, and returns the day of the last
// entry.
func journalOf(t *testing.T, h *harness, u *store.User) time.Time {
	t.Helper()
	trigger := store.NewTag{Type: store.TagTrigger, Name: "deadline", NewCategory: "deadlines"}
	anxious := store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"}
	friend := store.NewTag{Type: store.TagPerson, Name: "Ana"}
	day := h.store.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3).Add(9*time.Hour + 15*time.Minute + 123456*time.Microsecond)
	for i := range 3 {
		text := fmt.Sprintf("Deadline %d for %s.", i, u.Email)
		analysed(t, h, u, day.AddDate(0, 0, i), "Frist "+text, text, "de", trigger, anxious, friend)
	}
	// Days without Ana, so that she goes with the pattern more than usual.
	for i := range 3 {
		text := fmt.Sprintf("A quiet day %d for %s.", i, u.Email)
		analysed(t, h, u, day.AddDate(0, 0, -10-i), text, text, "en")
	}
	mustDetect(t, h, u)
	return day.AddDate(0, 0, 2)
}

// rowCounts counts the rows of every table of the database, but for the
// search index's internal ones, whose size depends on how it merged.
func rowCounts(t *testing.T, h *harness) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+h.dbPath+"?_pragma=busy_timeout(5000)&mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name NOT IN ('captures_search', 'captures_search_data', 'captures_search_idx', 'captures_search_config')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	counts := map[string]int{}
	for _, table := range tables {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM "` + table + `"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts[table] = n
	}
	return counts
}

// confirmed confirms the browser's session with testPassword.
func confirmed(t *testing.T, b *browser) {
	t.Helper()
	if res := b.do("POST", "/api/user/confirm-password", map[string]string{"password": testPassword}); res.Status != 200 {
		t.Fatalf("confirm: %d %s", res.Status, res.Body)
	}
}

func TestDeleteAccount(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	journalOf(t, h, h.bob)
	bobSession := signedIn(t, h, passwordUser(t, h, "bob2@example.com"), firefoxLinux)
	before := rowCounts(t, h)

	carol := passwordUser(t, h, "carol@example.com")
	journalOf(t, h, carol)
	laptop := signedIn(t, h, carol, firefoxLinux)
	phone := signedIn(t, h, carol, safariPhone)
	every := storetest.MustCreateToken(t, h.store, carol.ID)
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/captures", map[string]string{"text": "Waiting for analysis."}},
		{"PUT", "/api/settings/me/timezone", map[string]string{"value": "Europe/Berlin"}},
		{"POST", "/api/feedback", map[string]string{"feedback": "Thanks."}},
		{"POST", "/api/apps", map[string]string{"name": "Shortcut"}},
		{"POST", "/api/fcm-tokens/me", map[string]string{"token": "push-token-of-carol"}},
		{"POST", "/api/captures/reanalyse", nil},
		{"POST", "/api/user/confirmation-codes", nil},
	} {
		if res := laptop.do(r.method, r.path, r.body); res.Status >= 300 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, res.Status, res.Body)
		}
	}
	if err := h.store.ReplaceRecoveryCodes(ctx, carol.ID, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	seeded := rowCounts(t, h)
	for _, table := range []string{"captures", "segments", "segment_tags", "tags", "categories", "patterns", "correlations",
		"settings", "feedback", "apps", "personal_access_tokens", "push_tokens", "job_batches", "batch_jobs", "sessions", "mail_codes", "recovery_codes"} {
		if seeded[table] <= before[table] {
			t.Fatalf("carol has nothing in %s: the test would prove nothing there", table)
		}
	}

	t.Run("Unconfirmed", func(t *testing.T) {
		if res := laptop.do("DELETE", "/api/users/me", nil); res.Status != 423 ||
			!strings.Contains(string(res.Body), "Password confirmation required.") {
			t.Fatalf("unconfirmed session: %d %s", res.Status, res.Body)
		}
	})
	t.Run("Token", func(t *testing.T) {
		if res := h.do("DELETE", "/api/users/me", every, nil); res.Status != 403 ||
			!strings.Contains(string(res.Body), "Only a browser session") {
			t.Fatalf("a token with every scope: %d %s", res.Status, res.Body)
		}
	})
	t.Run("ConfirmedLongAgo", func(t *testing.T) {
		confirmed(t, laptop)
		h.advance(16 * time.Minute)
		if res := laptop.do("DELETE", "/api/users/me", nil); res.Status != 423 {
			t.Fatalf("confirmed 16 minutes ago: %d %s", res.Status, res.Body)
		}
	})
	if rowCounts(t, h)["users"] != seeded["users"] {
		t.Fatal("a refused deletion removed the user")
	}

	confirmed(t, laptop)
	res := laptop.do("DELETE", "/api/users/me", nil)
	if res.Status != 204 || len(res.Body) != 0 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if c := strings.Join(res.Header.Values("Set-Cookie"), " "); !strings.Contains(c, "recur_session=;") {
		t.Errorf("the session cookie was not cleared: %q", c)
	}
	for name, b := range map[string]*browser{"laptop": laptop, "phone": phone} {
		if res := b.do("GET", "/api/users/me", nil); res.Status != 401 {
			t.Errorf("the %s is still signed in: %d", name, res.Status)
		}
	}
	if res := h.do("GET", "/api/users/me", every, nil); res.Status != 401 {
		t.Errorf("carol's token still works: %d", res.Status)
	}
	if _, err := h.store.FindUserByEmail(ctx, carol.Email); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("carol is still found: %v", err)
	}

	after := rowCounts(t, h)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("%s: %d rows after the deletion, %d before carol came: something of hers is left, or someone else's went", table, after[table], n)
		}
	}
	if res := bobSession.do("GET", "/api/users/me", nil); res.Status != 200 {
		t.Errorf("another user's session was signed out: %d", res.Status)
	}
	if res := h.do("GET", "/api/captures", h.tokenB, nil); res.Status != 200 || !strings.Contains(string(res.Body), "bob@example.com") {
		t.Errorf("bob's entries: %d %s", res.Status, res.Body)
	}
}

var markdownNameRE = regexp.MustCompile(`^(\d{4})/(\d{4}-\d\d-\d\d-\d{4})-[0-9a-f]{8}\.md$`)

// unzip reads every file of a zip.
func unzip(t *testing.T, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		files[f.Name] = string(data)
	}
	return files
}

func TestMarkdownExport(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	const zone = "America/Santiago"
	if res := h.do("PUT", "/api/settings/me/timezone", h.tokenA, map[string]string{"value": zone}); res.Status != 200 {
		t.Fatalf("timezone: %d %s", res.Status, res.Body)
	}
	loc, _ := time.LoadLocation(zone)
	last := journalOf(t, h, h.alice)
	journalOf(t, h, h.bob)
	// Text as written, even when it looks like Markdown's own structure.
	tricky := "---\nnot: front matter\n---\n\n" + "## Translation (English, by Recur)\n\nStill the entry."
	for _, text := range []string{"Plain entry, not analysed yet.", tricky} {
		c := &store.Capture{UserID: h.alice.ID, Original: text, OccurredAt: last.Add(time.Hour)}
		if err := h.store.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
		last = last.Add(time.Hour)
	}

	res := h.do("GET", "/api/users/me/export/markdown", h.tokenA, nil)
	if res.Status != 200 || res.Header.Get("Content-Type") != "application/zip" ||
		!strings.Contains(res.Header.Get("Content-Disposition"), `attachment; filename="recur-`) {
		t.Fatalf("export: %d %v", res.Status, res.Header)
	}
	files := unzip(t, res.Body)
	mine, _, _ := h.store.ListCaptures(ctx, h.alice.ID, store.Page{Page: 1, Limit: 100})
	if len(files) != len(mine) {
		t.Fatalf("%d files for %d entries: %v", len(files), len(mine), slices.Collect(maps.Keys(files)))
	}
	for _, c := range mine {
		at := c.OccurredAt.In(loc)
		name := ""
		for n := range files {
			if strings.HasSuffix(n, strings.ReplaceAll(c.ID, "-", "")[24:]+".md") {
				name = n
			}
		}
		m := markdownNameRE.FindStringSubmatch(name)
		if m == nil || m[1] != at.Format("2006") || m[2] != at.Format("2006-01-02-1504") {
			t.Errorf("entry at %s (%s) is in %q", at, zone, name)
			continue
		}
		text := files[name]
		if want := "date: " + at.Format("2006-01-02T15:04:05.999999-07:00") + "\n"; !strings.HasPrefix(text, "---\n"+want) {
			t.Errorf("%s does not open with %q:\n%s", name, want, text)
		}
		if !strings.Contains(text, "\n---\n\n"+c.Original+"\n") {
			t.Errorf("%s lacks the text as written:\n%s", name, text)
		}
		if strings.Contains(text, "bob@example.com") {
			t.Errorf("%s holds bob's entry", name)
		}
		if c.Language == "en" && strings.Contains(text, "Translation") {
			t.Errorf("%s holds a translation of an English text into English:\n%s", name, text)
		}
		if c.Language == "de" {
			for _, want := range []string{"\nlanguage: \"de\"\n", "\ntags:\n", "\n  trigger: [\"deadline\"]\n", "\n  negative_feeling: [\"anxious\"]\n",
				"\n  person: [\"Ana\"]\n", "\npatterns: [\"deadlines\"]\n", "\ntranslated: true\n",
				"\n## Translation (English, by Recur)\n\n" + c.Translated + "\n"} {
				if !strings.Contains(text, want) {
					t.Errorf("%s lacks %q:\n%s", name, want, text)
				}
			}
		}
	}

	t.Run("ImportsBack", func(t *testing.T) {
		dave := storetest.MustCreateUser(t, h.store, "dave@example.com")
		token := storetest.MustCreateToken(t, h.store, dave.ID)
		if r := h.upload("/api/captures/import?filename=recur.zip", token, "application/zip", res.Body); r.Status != 202 {
			t.Fatalf("import: %d %s", r.Status, r.Body)
		}
		theirs, _, _ := h.store.ListCaptures(ctx, dave.ID, store.Page{Page: 1, Limit: 100})
		moments := func(list []store.Capture) []string {
			var out []string
			for _, c := range list {
				out = append(out, store.FormatTime(c.OccurredAt)+" "+c.Original)
			}
			slices.Sort(out)
			return out
		}
		if got, want := moments(theirs), moments(mine); !slices.Equal(got, want) {
			t.Fatalf("imported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("Scope", func(t *testing.T) {
		h.run([]scenario{
			{name: "NarrowToken", method: "GET", path: "/api/users/me/export/markdown", status: 403,
				token: storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read"), contains: []string{"account:export"}},
			{name: "NoOne", method: "GET", path: "/api/users/me/export/markdown", status: 401},
		})
	})
	t.Run("EmptyJournal", func(t *testing.T) {
		erin := storetest.MustCreateUser(t, h.store, "erin@example.com")
		res := h.do("GET", "/api/users/me/export/markdown", storetest.MustCreateToken(t, h.store, erin.ID), nil)
		if res.Status != 200 || len(unzip(t, res.Body)) != 0 {
			t.Fatalf("empty journal: %d", res.Status)
		}
	})
}
