package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// The feelings people write most are in the vocabulary, each with its
// valence: bittersweet and nostalgic are mixed (0), pleasant and unpleasant
// at once.
func TestFeelingsWrittenMost(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	list, err := s.Feelings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range list {
		got[f.Name] = f.Valence
	}
	for name, valence := range map[string]int{"happy": 1, "determined": 1, "nostalgic": 0, "wary": -1, "bittersweet": 0, "ambivalent": 0, "angry at myself": -1} {
		if v, ok := got[name]; !ok || v != valence {
			t.Errorf("%s: in vocabulary %v with valence %d, want valence %d", name, ok, v, valence)
		}
	}
}

// Rolling back the migration that added feelings leaves every tag, link,
// flow and pattern on a feeling of the older vocabulary: a tag of an added
// feeling merges into the user's tag of the nearest older one, or is
// renamed to it.
func TestFeelingsWrittenMostDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s, db := openBefore(t, path, 15)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u := storetest.MustCreateUser(t, s, "ana@example.com")
	const now = "2026-10-01T08:00:00.000000Z"
	for _, q := range []string{
		`INSERT INTO captures (id, user_id, original, occurred_at, status, available_at, created_at, updated_at)
			VALUES ('c1', '` + u.ID + `', 'x', '` + now + `', 'processed', '` + now + `', '` + now + `', '` + now + `')`,
		`INSERT INTO categories (id, user_id, kind, name, created_at) VALUES ('k1', '` + u.ID + `', 'trigger', 'calls', '` + now + `')`,
		`INSERT INTO tags (id, user_id, type, name, category_id, feeling_id, created_at) VALUES
			('t-call', '` + u.ID + `', 'trigger', 'a call', 'k1', NULL, '` + now + `'),
			('t-happy', '` + u.ID + `', 'positive_feeling', 'happy', NULL, 'happy', '` + now + `'),
			('t-cheerful', '` + u.ID + `', 'positive_feeling', 'cheerful', NULL, 'cheerful', '` + now + `'),
			('t-wary', '` + u.ID + `', 'negative_feeling', 'wary', NULL, 'wary', '` + now + `')`,
		// s1 names happy and cheerful, s2 happy alone, s3 wary.
		`INSERT INTO segments (id, capture_id, position, start, end, text, tag_ids) VALUES
			('s1', 'c1', 0, 0, 1, 'x', 't-call,t-happy,t-cheerful'),
			('s2', 'c1', 1, 0, 1, 'x', 't-call,t-happy'),
			('s3', 'c1', 2, 0, 1, 'x', 't-wary,t-call')`,
		`INSERT INTO segment_tags (segment_id, tag_id, position) VALUES
			('s1', 't-call', 0), ('s1', 't-happy', 1), ('s1', 't-cheerful', 2),
			('s2', 't-call', 0), ('s2', 't-happy', 1),
			('s3', 't-wary', 0), ('s3', 't-call', 1)`,
		`INSERT INTO patterns (id, user_id, category_id, sentiment, impact, feelings, last_detected_at, created_at, updated_at)
			VALUES ('p1', '` + u.ID + `', 'k1', 'positive', 'low', '["happy","wary","cheerful"]', '` + now + `', '` + now + `', '` + now + `')`,
		`INSERT INTO flows (id, pattern_id, segment_id, trigger, feeling, behaviour) VALUES ('f1', 'p1', 's2', 'a call', 'happy', 'x')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	for v := int64(0); v != 15; {
		var err error
		if v, err = s.MigrateDown(ctx); err != nil || v < 15 {
			t.Fatalf("down: %d %v", v, err)
		}
	}

	query := func(q string) []string { t.Helper(); return queryStrings(t, db, q) }
	check := func(what string, got []string, want ...string) { t.Helper(); checkStrings(t, what, got, want...) }
	check("feelings named happy or wary", query(`SELECT id FROM feelings WHERE id IN ('happy', 'wary', 'angry at myself')`))
	check("tags", query(`SELECT id || ' ' || name || ' ' || coalesce(feeling_id, '') FROM tags ORDER BY id`),
		"t-call a call ", "t-cheerful cheerful cheerful", "t-wary worried worried")
	check("segment tag ids", query(`SELECT id || ' ' || tag_ids FROM segments ORDER BY id`),
		"s1 t-call,t-cheerful", "s2 t-call,t-cheerful", "s3 t-wary,t-call")
	check("segment links", query(`SELECT segment_id || ' ' || tag_id || ' ' || position FROM segment_tags ORDER BY 1`),
		"s1 t-call 0", "s1 t-cheerful 2", "s2 t-call 0", "s2 t-cheerful 1", "s3 t-call 1", "s3 t-wary 0")
	check("pattern feelings", query(`SELECT feelings FROM patterns`), `["cheerful","worried"]`)
	check("flow feelings", query(`SELECT feeling FROM flows`), "cheerful")

	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check("feelings after up again", query(`SELECT id FROM feelings WHERE id IN ('happy', 'wary') ORDER BY id`), "happy", "wary")
}
