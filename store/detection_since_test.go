package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// A cached read of the facts tells what changed since the cache's last
// read: the situations of the entries written, edited or deleted since, as
// they were and as they are. It cannot tell after reading the journal
// whole, or when a tag reads otherwise than before, and says so.
func TestCachedFactsTellWhatChanged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "recur.db")
	s := storetest.MustOpenAt(t, path, nil)
	u := storetest.MustCreateUser(t, s, "since@example.com")
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	work := store.NewTag{Type: store.TagTrigger, Name: "a deadline", NewCategory: "work"}
	walk := store.NewTag{Type: store.TagGoodBehaviour, Name: "a walk", NewCategory: "moving"}
	first := storetest.MustWriteAnalysed(t, s, u.ID, at, work)
	storetest.MustWriteAnalysed(t, s, u.ID, at.Add(-time.Hour), work) // keeps the tag when first goes
	var cache store.FactsCache
	read := func() *store.Facts {
		t.Helper()
		f, err := s.CachedDetectionFacts(ctx, &cache, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// changed lists the captures of the segments Since gives, with the
	// names of their tags.
	changed := func(f *store.Facts) []string {
		t.Helper()
		if f.Since == nil {
			t.Fatal("the read cannot tell what changed")
		}
		var out []string
		for _, sg := range f.Since.Segments {
			line := sg.CaptureID + ":"
			for _, n := range sg.Tags {
				line += " " + f.Tags[n].Name
			}
			out = append(out, line)
		}
		slices.Sort(out)
		return out
	}
	if f := read(); f.Since != nil {
		t.Fatalf("the first read, of the journal whole, tells of changes: %+v", f.Since)
	}
	if got := changed(read()); len(got) != 0 {
		t.Fatalf("nothing changed, yet the read tells of %v", got)
	}
	second := storetest.MustWriteAnalysed(t, s, u.ID, at.Add(time.Hour), walk)
	if got, want := changed(read()), []string{second.ID + ": a walk"}; !slices.Equal(got, want) {
		t.Fatalf("after an entry written, changed: %v, want %v", got, want)
	}
	if err := s.DeleteCapture(ctx, u.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := changed(read()), []string{first.ID + ": a deadline"}; !slices.Equal(got, want) {
		t.Fatalf("after an entry deleted, changed: %v, want %v", got, want)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE tags SET name = 'a long walk' WHERE name = 'a walk'`); err != nil {
		t.Fatal(err)
	}
	if f := read(); f.Since != nil {
		t.Fatalf("a tag renamed, yet the read tells what changed: %+v", f.Since)
	}
}
