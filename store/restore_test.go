package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// journalOf makes a user with n captures, their texts holding what JSON
// must escape, and a setting.
func journalOf(t *testing.T, s *store.Store, email string, n int) *store.User {
	t.Helper()
	ctx := context.Background()
	u := storetest.MustCreateUser(t, s, email)
	for i := range n {
		c := &store.Capture{UserID: u.ID, OccurredAt: time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, i),
			Original: fmt.Sprintf("Day %d: <b>\"quoted\"</b> & \\ back, tab\there,\nnew line, é ü 日本 \u2028 \U0001F600", i)}
		if err := s.CreateCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: "app_locale", Value: "de"}); err != nil {
		t.Fatal(err)
	}
	return u
}

func exportBytes(t *testing.T, s *store.Store, userID string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(context.Background(), userID, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// captureIDs lists the ids of the user's captures, oldest first.
func captureIDs(t *testing.T, s *store.Store, userID string) []string {
	t.Helper()
	var doc struct{ Captures []struct{ ID string } }
	if err := json.Unmarshal(exportBytes(t, s, userID), &doc); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range doc.Captures {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestExportWritesRecordsAsEncodingJSON guards the export's bytes, which
// the streaming writer must keep as they were: every record is one line,
// exactly what json.Marshal writes for it as a map (keys sorted, HTML
// characters escaped).
func TestExportWritesRecordsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	u := journalOf(t, s, "bytes@example.com", 3)
	raw := exportBytes(t, s, u.ID)
	if !bytes.HasPrefix(raw, []byte("{\n\"format\": \"recur-export\",\n\"version\": 1,\n")) || !bytes.HasSuffix(raw, []byte("]\n}\n")) {
		t.Fatalf("export head or end changed:\n%s", raw)
	}
	records := 0
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(line, "\n"), "  "), ",")
		line = strings.TrimSuffix(line, "]")
		if !strings.HasPrefix(line, "{\"") {
			continue
		}
		records++
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		want, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		if got := line; got != string(want) {
			t.Errorf("record written as\n%s\nwant\n%s", got, want)
		}
	}
	if got, want := records, 3+1; got != want {
		t.Fatalf("checked %d records, want %d (three captures and a setting)", got, want)
	}
	if !bytes.Contains(raw, []byte(`\u003cb\u003e\"quoted\"\u003c/b\u003e \u0026 \\ back, tab\there,\nnew line`)) {
		t.Error("a capture's text is not escaped as encoding/json escapes it")
	}
}

// TestRestoreKeepsOrRenewsIDs: restored into a new instance, records keep
// their ids; when one of them is taken there, even one late in the
// document, every record gets a new id and nothing is lost.
func TestRestoreKeepsOrRenewsIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := storetest.MustOpen(t)
	u := journalOf(t, a, "first@example.com", 150)
	raw := exportBytes(t, a, u.ID)
	want := captureIDs(t, a, u.ID)

	s := storetest.MustOpen(t)
	x := storetest.MustCreateUser(t, s, "x@example.com")
	res, err := s.Restore(ctx, x.ID, "restore", store.OpenBytes(raw))
	if err != nil || res.Imported != 150 {
		t.Fatalf("restore = %+v, %v", res, err)
	}
	if got := captureIDs(t, s, x.ID); !slices.Equal(got, want) {
		t.Fatal("restored into a new instance, the captures changed their ids")
	}
	// Only the 130th capture stays: its id is taken, the others are free.
	for i, id := range want {
		if i != 129 {
			if err := s.DeleteCapture(ctx, x.ID, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	y := storetest.MustCreateUser(t, s, "y@example.com")
	res, err = s.Restore(ctx, y.ID, "restore", store.OpenBytes(raw))
	if err != nil || res.Imported != 150 {
		t.Fatalf("restore with one id taken = %+v, %v", res, err)
	}
	got := captureIDs(t, s, y.ID)
	if len(got) != 150 {
		t.Fatalf("restored %d captures, want 150", len(got))
	}
	for _, id := range got {
		if slices.Contains(want, id) {
			t.Fatalf("capture %s kept its id although one of the export's ids was taken", id)
		}
	}
}

// TestRestoreRefusesBrokenDocuments: a document that is not a Recur export
// or breaks a rule, wherever in the stream, gives EINVALID under file
// saying where, and writes nothing; an error reading the document comes
// back as it is.
func TestRestoreRefusesBrokenDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := storetest.MustOpen(t)
	raw := string(exportBytes(t, a, journalOf(t, a, "source@example.com", 150).ID))
	head := `{"format": "recur-export", "version": 1, `
	for _, c := range []struct{ name, doc, want string }{
		{"NotJSON", raw[:len(raw)/2], "not valid JSON"},
		{"NotAnObject", `[1, 2]`, "not an object"},
		{"Format", strings.Replace(raw, `"recur-export"`, `"other-export"`, 1), `its format is "other-export"`},
		{"Version", strings.Replace(raw, `"version": 1`, `"version": 2`, 1), "format version 2"},
		{"NoHead", `{"captures": []}`, "not a Recur export"},
		{"UnknownPart", head + `"photos": []}`, `unknown part "photos"`},
		{"Order", head + `"tags": [], "categories": []}`, "categories come after"},
		{"Twice", head + `"captures": [], "captures": []}`, "captures come after"},
		{"RecordNotObject", head + `"captures": [1]}`, "not an object"},
		{"BadValue", strings.Replace(raw, `"origin":"text"`, `"origin":true`, 1), "captures[0]: origin must be text, a number or null"},
		{"LateRecord", replaceNth(raw, `"status":"queued"`, `"status":"bogus"`, 140), "captures[139]: status must be"},
		{"LateUnknownField", strings.Replace(raw, `"original":"Day 140:`, `"original":null,"x":"`, 1), `captures[140]: unknown field "x"`},
		{"RepeatedField", strings.Replace(raw, `"original":"Day 140:`, `"original":null,"translated":"`, 1), `captures[140]: unknown field "translated"`},
		{"Trailing", raw + "{}", "follows its end"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := storetest.MustCreateUser(t, a, strings.ToLower(c.name)+"@example.com")
			_, err := a.Restore(ctx, u.ID, "broken", store.OpenBytes([]byte(c.doc)))
			var se *store.Error
			if !errors.As(err, &se) || se.Code != store.EINVALID || se.Field != "file" || !strings.Contains(se.Message, c.want) {
				t.Fatalf("err = %v; want EINVALID under file saying %q", err, c.want)
			}
			if ids := captureIDs(t, a, u.ID); len(ids) != 0 {
				t.Fatalf("a refused restore wrote %d captures", len(ids))
			}
		})
	}
	t.Run("LateConstraintInABatch", func(t *testing.T) {
		// A missing time breaks NOT NULL only when written, in a multi-row
		// insert: the record is still named.
		at := store.FormatTime(time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, 140))
		doc := strings.Replace(raw, `"occurred_at":"`+at+`"`, `"occurred_at":null`, 1)
		u := storetest.MustCreateUser(t, a, "batch@example.com")
		_, err := a.Restore(ctx, u.ID, "broken", store.OpenBytes([]byte(doc)))
		if store.ErrorCode(err) != store.EINVALID || !strings.Contains(store.ErrorMessage(err), "captures[140]") {
			t.Fatalf("err = %v; want EINVALID naming captures[140]", err)
		}
		if ids := captureIDs(t, a, u.ID); len(ids) != 0 {
			t.Fatalf("a refused restore wrote %d captures", len(ids))
		}
	})
	t.Run("EarlierBatchFirst", func(t *testing.T) {
		// The document is read ahead of the writing: a batch that cannot
		// be written is still the error given, not that of a record read
		// after it, and nothing is written.
		at := store.FormatTime(time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC).AddDate(0, 0, 10))
		doc := strings.Replace(raw, `"occurred_at":"`+at+`"`, `"occurred_at":null`, 1)
		doc = replaceNth(doc, `"status":"queued"`, `"status":"bogus"`, 140)
		for i := range 5 {
			u := storetest.MustCreateUser(t, a, fmt.Sprintf("first%d@example.com", i))
			_, err := a.Restore(ctx, u.ID, "broken", store.OpenBytes([]byte(doc)))
			if store.ErrorCode(err) != store.EINVALID || !strings.Contains(store.ErrorMessage(err), "captures[10]") {
				t.Fatalf("err = %v; want EINVALID naming captures[10]", err)
			}
			if ids := captureIDs(t, a, u.ID); len(ids) != 0 {
				t.Fatalf("a refused restore wrote %d captures", len(ids))
			}
		}
	})
	t.Run("ReadError", func(t *testing.T) {
		cut := errors.New("disk gone")
		u := storetest.MustCreateUser(t, a, "readerror@example.com")
		open := func() (io.ReadCloser, error) {
			return io.NopCloser(io.MultiReader(strings.NewReader(raw[:len(raw)/2]), errReader{cut})), nil
		}
		if _, err := a.Restore(ctx, u.ID, "cut", open); !errors.Is(err, cut) {
			t.Fatalf("err = %v; want the reading error", err)
		}
	})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// replaceNth replaces the nth occurrence (from 1) of old in s.
func replaceNth(s, old, new string, n int) string {
	at := 0
	for range n {
		i := strings.Index(s[at:], old)
		if i < 0 {
			return s
		}
		at += i + len(old)
	}
	return s[:at-len(old)] + new + s[at:]
}

// TestRestoreQueuesWaitingCaptures: captures that were queued or being
// analysed when the export was made are queued again where they are
// restored, in the import's batch; a processed or failed one keeps its
// status and is not.
func TestRestoreQueuesWaitingCaptures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := storetest.MustOpen(t)
	u := journalOf(t, a, "waiting@example.com", 3)
	failed, err := a.ClaimCapture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.FailCapture(ctx, failed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ClaimCapture(ctx); err != nil { // one is being analysed
		t.Fatal(err)
	}

	s := storetest.MustOpen(t)
	x := storetest.MustCreateUser(t, s, "x@example.com")
	res, err := s.Restore(ctx, x.ID, "restore", store.OpenBytes(exportBytes(t, a, u.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Batch == nil || res.Batch.Total != 2 {
		t.Fatalf("restore's batch = %+v, want the two captures that waited", res.Batch)
	}
	statuses := map[store.CaptureStatus]int{}
	for _, id := range captureIDs(t, s, x.ID) {
		c, err := s.FindCapture(ctx, x.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		statuses[c.Status]++
	}
	if want := map[store.CaptureStatus]int{store.StatusQueued: 2, store.StatusFailed: 1}; !maps.Equal(statuses, want) {
		t.Errorf("restored statuses %v, want %v", statuses, want)
	}
}
