package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// TestCachedTagsReadAsFresh holds the names a NamesCache keeps between
// reads to the names read fresh: after every step of a random sequence
// (entries analysed with new and known names, new and known categories,
// names that differ only in case or type; entries deleted, whose names
// then go; entries edited and analysed again; patterns rejected, taken back
// and accepted; a category deleted under its tags; tags and categories
// renamed, recased and moved by a write of their own; an export restored;
// another user writing; notes pruned by this reader or by another) the
// cache gives exactly the tags, categories and order Tags gives, for any
// types asked.
func TestCachedTagsReadAsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	s := storetest.MustOpenAt(t, t.TempDir()+"/names.db", func() time.Time { return now })
	u := storetest.MustCreateUser(t, s, "cached@example.com")
	other := storetest.MustCreateUser(t, s, "other@example.com")
	rng := rand.New(rand.NewPCG(27, 2000))
	var cache, rare store.NamesCache

	names := []string{"Anna", "anna", "the office", "The Office", "cooking", "Cooking dinner", "late", "walk", "Ben", "café"}
	topics := []string{"work", "Work stress", "family", "rest"}
	feelings := []string{"anxious", "cheerful", "calm", "tired"}
	types := []store.TagType{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour, store.TagPerson, store.TagLocation, store.TagActivity}
	situation := func(userID string) []store.NewTag {
		var tags []store.NewTag
		seen := map[string]bool{}
		for range 1 + rng.IntN(5) {
			typ, name := types[rng.IntN(len(types))], names[rng.IntN(len(names))]
			if seen[string(typ)+name] {
				continue
			}
			seen[string(typ)+name] = true
			nt := store.NewTag{Type: typ, Name: name}
			if store.Categorised(typ) {
				nt.NewCategory = topics[rng.IntN(len(topics))]
				if cats, err := s.Categories(ctx, userID, typ); err == nil && len(cats) > 0 && rng.IntN(2) == 0 {
					nt.NewCategory, nt.CategoryID = "", cats[rng.IntN(len(cats))].ID
				}
			}
			tags = append(tags, nt)
		}
		f := feelings[rng.IntN(len(feelings))]
		typ := store.TagNegativeFeeling
		if f == "cheerful" || f == "calm" {
			typ = store.TagPositiveFeeling
		}
		return append(tags, store.NewTag{Type: typ, Name: f, FeelingID: f})
	}
	analyse := func(c *store.Capture) {
		t.Helper()
		if claimed, err := s.ClaimCapture(ctx); err != nil || claimed.ID != c.ID {
			t.Fatalf("claimed %+v, %v; want %s", claimed, err, c.ID)
		}
		var segments []store.AnalysedSegment
		for range 1 + rng.IntN(3) {
			segments = append(segments, store.AnalysedSegment{Start: 0, End: 3, Tags: situation(c.UserID)})
		}
		if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Translated: "Yes", Language: "en", Segments: segments}); err != nil {
			t.Fatal(err)
		}
	}
	randomCategory := func() (string, bool) {
		var all []store.Category
		for _, kind := range []store.TagType{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour} {
			cats, err := s.Categories(ctx, u.ID, kind)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, cats...)
		}
		if len(all) == 0 {
			return "", false
		}
		return all[rng.IntN(len(all))].ID, true
	}
	write := func(query string, args ...any) {
		t.Helper()
		if err := s.WriteNames(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
	}

	var ids []string
	for step := range 200 {
		switch op := rng.IntN(20); {
		case op < 7 || len(ids) == 0:
			c := &store.Capture{UserID: u.ID, Original: "An entry.", OccurredAt: now.Add(-time.Duration(rng.IntN(900)) * time.Hour)}
			if err := s.CreateCapture(ctx, c); err != nil {
				t.Fatal(err)
			}
			analyse(c)
			ids = append(ids, c.ID)
		case op < 9:
			i := rng.IntN(len(ids))
			if err := s.DeleteCapture(ctx, u.ID, ids[i]); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		case op < 11:
			text := fmt.Sprint("Edited ", step)
			c, _, err := s.UpdateCapture(ctx, u.ID, ids[rng.IntN(len(ids))], store.CaptureUpdate{Text: &text})
			if err != nil {
				t.Fatal(err)
			}
			analyse(c)
		case op < 13:
			id, ok := randomCategory()
			if !ok {
				continue
			}
			err := s.SaveDetection(ctx, u.ID, []store.DetectedPattern{{CategoryID: id, Sentiment: "negative", Impact: "low",
				Feelings: []string{"anxious"}, CapturesCount: 3, LastSeen: now}})
			if err != nil {
				t.Fatal(err)
			}
			list, _, err := s.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 50})
			if err != nil || len(list) == 0 {
				continue
			}
			status := []store.PatternStatus{store.PatternAccepted, store.PatternRejected, store.PatternDetected}[rng.IntN(3)]
			if _, err := s.ReviewPattern(ctx, u.ID, list[rng.IntN(len(list))].ID, status); err != nil && store.ErrorCode(err) != store.EINVALID {
				t.Fatal(err)
			}
		case op < 14:
			if id, ok := randomCategory(); ok {
				write(`DELETE FROM patterns WHERE category_id = ?`, id)
				write(`DELETE FROM categories WHERE id = ?`, id)
			}
		case op < 15:
			if id, ok := randomCategory(); ok {
				write(`UPDATE categories SET name = ? WHERE id = ? AND NOT EXISTS
					(SELECT 1 FROM categories c WHERE c.user_id = categories.user_id AND c.kind = categories.kind AND c.name = ?1 AND c.id != ?2)`,
					topics[rng.IntN(len(topics))]+[]string{"", " too"}[rng.IntN(2)], id)
			}
		case op < 16:
			write(`UPDATE tags SET name = upper(substr(name, 1, 1)) || substr(name, 2) WHERE id IN
				(SELECT id FROM tags WHERE user_id = ? AND type != 'trigger' ORDER BY random() LIMIT 1)
				AND NOT EXISTS (SELECT 1 FROM tags o WHERE o.user_id = tags.user_id AND o.type = tags.type AND o.id != tags.id
					AND o.name = upper(substr(tags.name, 1, 1)) || substr(tags.name, 2))`, u.ID)
		case op < 17:
			if id, ok := randomCategory(); ok {
				write(`UPDATE tags SET category_id = ? WHERE id IN (SELECT t.id FROM tags t JOIN categories c ON c.id = ?1
					WHERE t.user_id = c.user_id AND t.type = c.kind ORDER BY random() LIMIT 1)`, id)
			}
		case op < 18:
			if rng.IntN(4) > 0 {
				continue
			}
			res, err := s.Restore(ctx, u.ID, "restore", store.OpenBytes(storetest.MustExport(t, s, other.ID)))
			if err != nil {
				t.Fatalf("restore = %+v, %v", res, err)
			}
		default:
			storetest.MustWriteAnalysed(t, s, other.ID, now.Add(-time.Duration(rng.IntN(900))*time.Hour), situation(other.ID)...)
		}
		var asked []store.TagType
		for _, typ := range store.TagTypes {
			if rng.IntN(3) > 0 {
				asked = append(asked, typ)
			}
		}
		for _, c := range []*store.NamesCache{&cache, &rare} {
			if c == &rare && step%13 != 0 {
				continue
			}
			cached, err := s.CachedTags(ctx, c, u.ID, asked...)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := s.Tags(ctx, u.ID, asked...)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cached, fresh) {
				t.Fatalf("step %d, types %v: the cache reads\n%s\nread fresh\n%s", step, asked, tagLines(cached), tagLines(fresh))
			}
		}
		if step%9 == 0 {
			if err := s.PruneNameChanges(ctx, &cache, u.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// tagLines is a line per tag: its id, type, name and category.
func tagLines(tags []store.Tag) string {
	out := ""
	for _, t := range tags {
		out += fmt.Sprintf("%s %s %q", t.ID, t.Type, t.Name)
		if t.Category != nil {
			out += fmt.Sprintf(" in %s %q rejected=%v", t.Category.ID, t.Category.Name, t.Category.Rejected)
		}
		out += "\n"
	}
	return out
}
