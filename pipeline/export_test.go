package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// exportOf exports the user's journal and decodes it, leaving out the
// parts that name the instance and the moment: the user and exported_at.
func exportOf(t *testing.T, s *store.Store, userID string) (raw []byte, doc map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Export(context.Background(), userID, &buf); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	delete(doc, "user")
	delete(doc, "exported_at")
	return buf.Bytes(), doc
}

// patternStates lists the user's listed patterns as "name status".
func patternStates(t *testing.T, s *store.Store, userID string) []string {
	t.Helper()
	list, _, err := s.ListPatterns(context.Background(), userID, store.Page{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list {
		out = append(out, p.Name+" "+string(p.Status))
	}
	slices.Sort(out)
	return out
}

// TestExportRoundTrip exports the analysed journal, with the user's review
// decisions, and restores it elsewhere: into a new instance it comes back
// record for record; into the same instance under new ids; into an
// account that has the entries, it adds nothing.
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := runJournal(t)
	list, _, err := e.store.ListPatterns(ctx, e.user.ID, store.Page{Page: 1, Limit: 100})
	if err != nil || len(list) < 2 {
		t.Fatalf("patterns: %v, %v", list, err)
	}
	if _, err := e.store.ReviewPattern(ctx, e.user.ID, list[0].ID, "accepted"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ReviewPattern(ctx, e.user.ID, list[1].ID, "rejected"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutSetting(ctx, e.user.ID, &store.Setting{Key: "app_locale", Value: "de"}); err != nil {
		t.Fatal(err)
	}
	raw, want := exportOf(t, e.store, e.user.ID)
	for _, table := range []string{"settings", "categories", "tags", "captures", "segments", "segment_tags", "patterns", "correlations", "flows"} {
		if rows, _ := want[table].([]any); len(rows) == 0 {
			t.Fatalf("the export has no %s", table)
		}
	}
	if bytes.Contains(raw, []byte("secret_hash")) || bytes.Contains(raw, []byte("password")) || bytes.Contains(raw, []byte("embedding")) {
		t.Fatal("the export holds credentials or embeddings")
	}
	captures := len(want["captures"].([]any))

	t.Run("NewInstance", func(t *testing.T) {
		s := storetest.MustOpenAt(t, filepath.Join(t.TempDir(), "new.db"), func() time.Time { return journalEnd })
		u := storetest.MustCreateUser(t, s, "moved@example.com")
		res, err := s.Restore(ctx, u.ID, "Import of export.json", store.OpenBytes(raw))
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != captures || res.Batch.Total != 0 || res.Batch.FinishedAt == nil {
			t.Fatalf("restore: %+v batch %+v; want %d captures and nothing to analyse", res, res.Batch, captures)
		}
		_, got := exportOf(t, s, u.ID)
		if !reflect.DeepEqual(got, want) {
			for k := range want {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("%s differs after the round trip", k)
				}
			}
		}
		if got, want := patternStates(t, s, u.ID), patternStates(t, e.store, e.user.ID); !slices.Equal(got, want) {
			t.Errorf("patterns after restore = %v, want %v", got, want)
		}
	})
	t.Run("SameInstanceNewIDs", func(t *testing.T) {
		u := storetest.MustCreateUser(t, e.store, "second@example.com")
		if _, err := e.store.Restore(ctx, u.ID, "Import of export.json", store.OpenBytes(raw)); err != nil {
			t.Fatal(err)
		}
		_, got := exportOf(t, e.store, u.ID)
		for k, rows := range want {
			if rows, ok := rows.([]any); ok && len(got[k].([]any)) != len(rows) {
				t.Errorf("%s: %d rows, want %d", k, len(got[k].([]any)), len(rows))
			}
		}
		a := want["captures"].([]any)[0].(map[string]any)
		b := got["captures"].([]any)[0].(map[string]any)
		if a["id"] == b["id"] || a["original"] != b["original"] || a["occurred_at"] != b["occurred_at"] {
			t.Errorf("first capture %v -> %v; want a new id, the same text and time", a["id"], b["id"])
		}
		if got, want := patternStates(t, e.store, u.ID), patternStates(t, e.store, e.user.ID); !slices.Equal(got, want) {
			t.Errorf("patterns after restore = %v, want %v", got, want)
		}
	})
	t.Run("AccountWithEntriesAddsNothing", func(t *testing.T) {
		res, err := e.store.Restore(ctx, e.user.ID, "again", store.OpenBytes(raw))
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 0 || res.Duplicates != captures {
			t.Fatalf("restore into the same account: %+v; want all %d left out", res, captures)
		}
	})
	t.Run("ReanalyseRunsEveryCaptureAgain", func(t *testing.T) {
		before := patternStates(t, e.store, e.user.ID)
		calls := len(e.fake.Calls())
		b, err := e.store.Reanalyse(ctx, e.user.ID)
		if err != nil || b.Total != captures || b.Pending != captures {
			t.Fatalf("re-analysis: %+v, %v", b, err)
		}
		drain(t, e.pipe)
		if b, err = e.store.FindJobBatch(ctx, e.user.ID, b.ID); err != nil || b.Processed != captures || b.FinishedAt == nil || b.Progress() != 100 {
			t.Fatalf("re-analysis after the queue drained: %+v, %v", b, err)
		}
		if len(e.fake.Calls()) <= calls {
			t.Fatal("the re-analysis never asked the model")
		}
		if after := patternStates(t, e.store, e.user.ID); !slices.Equal(after, before) {
			t.Errorf("patterns after re-analysis with the same model = %v, want %v", after, before)
		}
	})
	t.Run("BrokenExportWritesNothing", func(t *testing.T) {
		u := storetest.MustCreateUser(t, e.store, "broken@example.com")
		for _, c := range []struct{ from, to, where string }{
			{`"status":"processed"`, `"status":"bogus"`, "captures["},
			{`"value":"de"`, `"value":"Klingon (fluent)"`, "settings["},
			{`"occurred_at":"2026-10-`, `"occurred_at":"yesterday`, "occurred_at"},
			{`"original":`, `"unheard_of":0,"original":`, "unknown field"},
		} {
			broken := strings.Replace(string(raw), c.from, c.to, 1)
			_, err := e.store.Restore(ctx, u.ID, "broken", store.OpenBytes([]byte(broken)))
			if store.ErrorCode(err) != store.EINVALID || !strings.Contains(store.ErrorMessage(err), c.where) {
				t.Errorf("%s -> %s: err = %v; want EINVALID mentioning %s", c.from, c.to, err, c.where)
			}
		}
		_, got := exportOf(t, e.store, u.ID)
		for k, rows := range got {
			if rows, ok := rows.([]any); ok && len(rows) != 0 {
				t.Errorf("a refused restore left %d %s", len(rows), k)
			}
		}
	})
}
