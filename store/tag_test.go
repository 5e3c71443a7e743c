package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestTagEmbeddings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "recur.db")
	s := storetest.MustOpenAt(t, path, nil)
	ctx := context.Background()
	u := storetest.MustCreateUser(t, s, "names@example.com")
	c := &store.Capture{UserID: u.ID, Original: "Anna and Jonas at the park."}
	if err := s.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: []store.NewTag{
			{Type: store.TagPerson, Name: "Anna"}, {Type: store.TagPerson, Name: "Jonas"}, {Type: store.TagLocation, Name: "the park"}}}}}); err != nil {
		t.Fatal(err)
	}
	tags, err := s.Tags(ctx, u.ID, store.TagPerson)
	if err != nil || len(tags) != 2 {
		t.Fatalf("tags: %v %v", tags, err)
	}
	want := map[string][]float32{tags[0].ID: {0.25, -1.5, 3e-8}, tags[1].ID: {1, 0, -0}}

	t.Run("OK", func(t *testing.T) {
		// A tag deleted meanwhile is skipped, not an error.
		if err := s.SetTagEmbeddings(ctx, map[string][]float32{tags[0].ID: {9}, "no-such-tag": {1, 2}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetTagEmbeddings(ctx, want); err != nil { // replaces the first
			t.Fatal(err)
		}
		got, err := s.TagEmbeddings(ctx, u.ID, store.TagPerson)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d embeddings read back, want %d", len(got), len(want))
		}
		for id, v := range want {
			if !slices.Equal(got[id], v) {
				t.Errorf("embedding of %s read back as %v, want %v", id, got[id], v)
			}
		}
		if got, _ := s.TagEmbeddings(ctx, u.ID, store.TagLocation); len(got) != 0 {
			t.Errorf("locations read back %d embeddings of other types", len(got))
		}
		other := storetest.MustCreateUser(t, s, "other@example.com")
		if got, _ := s.TagEmbeddings(ctx, other.ID, store.TagPerson); len(got) != 0 {
			t.Errorf("another user read back %d embeddings", len(got))
		}
	})

	t.Run("GoneWithTheTag", func(t *testing.T) {
		if err := s.DeleteCapture(ctx, u.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM tag_embeddings`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d embeddings outlived their tags", n)
		}
	})
}
