package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// The migration that gives feelings a mixed valence makes the feelings and
// tags tables anew: every row and id is kept, nothing that refers to a tag
// is dropped, the tags of bittersweet and nostalgic become mixed_feeling,
// and the categories' valence counts leave them out. Rolled back, each
// goes back where it leaned and ambivalent merges into bittersweet.
func TestMixedFeelingsMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := openBefore(t, filepath.Join(t.TempDir(), "recur.db"), 29)
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	query := func(q string) []string { t.Helper(); return queryStrings(t, db, q) }
	check := func(what string, got []string, want ...string) { t.Helper(); checkStrings(t, what, got, want...) }
	const now = "2026-10-01T08:00:00.000000Z"
	exec(`INSERT INTO users (id, email, name, created_at, updated_at) VALUES ('u1', 'ana@example.com', 'Ana', '`+now+`', '`+now+`')`,
		`INSERT INTO captures (id, user_id, original, occurred_at, status, available_at, created_at, updated_at)
			VALUES ('c1', 'u1', 'x', '`+now+`', 'processed', '`+now+`', '`+now+`', '`+now+`')`,
		`INSERT INTO categories (id, user_id, kind, name, created_at) VALUES ('k1', 'u1', 'trigger', 'old photos', '`+now+`')`,
		`INSERT INTO tags (id, user_id, type, name, category_id, feeling_id, created_at) VALUES
			('t-photos', 'u1', 'trigger', 'old photos', 'k1', NULL, '`+now+`'),
			('t-nostalgic', 'u1', 'positive_feeling', 'nostalgic', NULL, 'nostalgic', '`+now+`'),
			('t-grateful', 'u1', 'positive_feeling', 'grateful', NULL, 'grateful', '`+now+`'),
			('t-bittersweet', 'u1', 'negative_feeling', 'bittersweet', NULL, 'bittersweet', '`+now+`')`,
		`INSERT INTO segments (id, capture_id, position, start, end, text, tag_ids) VALUES
			('s1', 'c1', 0, 0, 1, 'x', 't-photos,t-nostalgic,t-grateful'),
			('s2', 'c1', 1, 0, 1, 'x', 't-photos,t-bittersweet')`,
		`INSERT INTO segment_tags (segment_id, tag_id, position) VALUES
			('s1', 't-photos', 0), ('s1', 't-nostalgic', 1), ('s1', 't-grateful', 2), ('s2', 't-photos', 0), ('s2', 't-bittersweet', 1)`,
		`INSERT INTO patterns (id, user_id, category_id, sentiment, impact, feelings, last_detected_at, created_at, updated_at)
			VALUES ('p1', 'u1', 'k1', 'positive', 'low', '["nostalgic","grateful"]', '`+now+`', '`+now+`', '`+now+`')`,
		`INSERT INTO correlations (id, pattern_id, tag_id, amount, impact, created_at, updated_at) VALUES ('r1', 'p1', 't-photos', 2, 'low', '`+now+`', '`+now+`')`)
	check("valences before", query(`SELECT pleasant || ' ' || unpleasant FROM category_valences`), "2 1")

	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check("feelings", query(`SELECT id || ' ' || valence FROM feelings WHERE id IN ('ambivalent', 'bittersweet', 'grateful', 'nostalgic') ORDER BY id`),
		"ambivalent 0", "bittersweet 0", "grateful 1", "nostalgic 0")
	check("tags", query(`SELECT id || ' ' || type FROM tags ORDER BY id`),
		"t-bittersweet mixed_feeling", "t-grateful positive_feeling", "t-nostalgic mixed_feeling", "t-photos trigger")
	check("segment links", query(`SELECT segment_id || ' ' || tag_id FROM segment_tags ORDER BY 1`),
		"s1 t-grateful", "s1 t-nostalgic", "s1 t-photos", "s2 t-bittersweet", "s2 t-photos")
	check("correlations", query(`SELECT id FROM correlations`), "r1")
	check("valences", query(`SELECT pleasant || ' ' || unpleasant FROM category_valences`), "1 0")
	// The tables made anew keep their rules: an unknown feeling is refused.
	if _, err := db.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO tags (id, user_id, type, name, feeling_id, created_at) VALUES ('t-x', 'u1', 'mixed_feeling', 'x', 'no such feeling', '`+now+`')`); err == nil {
		t.Error("a tag of a feeling not in the vocabulary was stored")
	}
	exec(`INSERT INTO tags (id, user_id, type, name, feeling_id, created_at) VALUES ('t-ambivalent', 'u1', 'mixed_feeling', 'ambivalent', 'ambivalent', '`+now+`')`,
		`INSERT INTO segment_tags (segment_id, tag_id, position) VALUES ('s2', 't-ambivalent', 2)`,
		`UPDATE segments SET tag_ids = 't-photos,t-bittersweet,t-ambivalent' WHERE id = 's2'`)

	// Later migrations are rolled back first, down to this one.
	for {
		v, err := s.MigrateDown(ctx)
		if err != nil || v < 29 {
			t.Fatalf("down: %d %v", v, err)
		}
		if v == 29 {
			break
		}
	}
	check("feelings after down", query(`SELECT id || ' ' || valence FROM feelings WHERE id IN ('ambivalent', 'bittersweet', 'nostalgic') ORDER BY id`),
		"bittersweet -1", "nostalgic 1")
	check("tags after down", query(`SELECT id || ' ' || type FROM tags ORDER BY id`),
		"t-bittersweet negative_feeling", "t-grateful positive_feeling", "t-nostalgic positive_feeling", "t-photos trigger")
	check("segment tag ids after down", query(`SELECT tag_ids FROM segments ORDER BY id`), "t-photos,t-nostalgic,t-grateful", "t-photos,t-bittersweet")
	check("valences after down", query(`SELECT pleasant || ' ' || unpleasant FROM category_valences`), "2 1")
}

// TestRestoreFilesMixedFeelingsAsMixed: an export made before feelings had
// a mixed class, with nostalgic as a pleasant feeling's tag, is restored
// with that tag a mixed one.
func TestRestoreFilesMixedFeelingsAsMixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, a, "old@example.com")
	c := &store.Capture{UserID: u.ID, Original: "Old photos with Mum.", OccurredAt: time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)}
	if err := a.CreateCapture(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ClaimCapture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
		Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: []store.NewTag{
			{Type: store.TagTrigger, Name: "old photos", NewCategory: "old photos"},
			{Type: store.TagMixedFeeling, Name: "nostalgic", FeelingID: "nostalgic"}}}}}); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(exportBytes(t, a, u.ID)), `"type":"mixed_feeling"`, `"type":"positive_feeling"`, 1)
	if !strings.Contains(old, `"type":"positive_feeling"`) {
		t.Fatal("the export has no mixed feeling's tag to file as pleasant")
	}
	s := storetest.MustOpen(t)
	x := storetest.MustCreateUser(t, s, "x@example.com")
	if _, err := s.Restore(ctx, x.ID, "restore", store.OpenBytes([]byte(old))); err != nil {
		t.Fatal(err)
	}
	tags, err := s.Tags(ctx, x.ID, store.TagTypes...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range tags {
		if tg.Name == "nostalgic" && tg.Type != store.TagMixedFeeling {
			t.Errorf("restored nostalgic is a %s, want mixed_feeling", tg.Type)
		}
	}
}
