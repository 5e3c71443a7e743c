package pipeline_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// decadeNames are the pools a ten-year journal's names are drawn from: a
// few hundred of each type, made of ordinary words so that they cost what
// real names cost in a prompt.
func decadeNames() map[store.TagType][]string {
	cross := func(as, bs []string) []string {
		var out []string
		for _, a := range as {
			for _, b := range bs {
				out = append(out, a+" "+b)
			}
		}
		return out
	}
	given := []string{"Anna", "Jonas", "Mika", "Lea", "Tomas", "Sara", "Ben", "Ines", "Omar", "Yuki", "Lina", "Paul", "Nora", "Eli", "Rosa", "Ivan", "Maya", "Hugo", "Zoe", "Karl"}
	family := []string{"Berg", "Costa", "Dahl", "Engel", "Fischer", "Gomez", "Haas", "Ito", "Jensen", "Klein", "Lund", "Moreau", "Novak", "Ortega", "Petrov"}
	places := []string{"cafe", "park", "office", "station", "library", "gym", "market", "bakery", "school", "clinic", "pool", "bar", "shop", "garden", "bridge"}
	kinds := []string{"old", "new", "small", "big", "corner", "north", "south", "quiet", "busy", "green"}
	doings := []string{"cooking", "reading", "running", "cleaning", "painting", "writing", "fixing", "planning", "walking", "shopping", "sewing", "baking"}
	when := []string{"alone", "with friends", "for work", "on weekends", "in the morning", "after dinner", "before bed", "at night", "with family", "outside"}
	upsets := []string{"late", "harsh", "unexpected", "noisy", "long", "missed", "cancelled", "extra", "sudden", "rude"}
	things := []string{"train", "email", "meeting", "call", "deadline", "review", "bill", "message", "visit", "delay", "request", "comment", "neighbour", "traffic", "queue"}
	from := []string{"at work", "at home", "in town", "from family"}
	helped := []string{"went for", "took", "made", "had", "planned", "booked", "asked for", "wrote"}
	helps := []string{"a walk", "a break", "a plan", "tea", "a nap", "a list", "a swim", "a bath", "help", "a call", "a day off", "an early night", "a long talk", "a budget", "a stretch"}
	harmed := []string{"skipped", "put off", "ignored", "snapped at", "scrolled through", "cancelled", "forgot", "avoided"}
	harms := []string{"lunch", "the gym", "the dishes", "my partner", "the news", "plans", "my pills", "the doctor", "emails", "bedtime", "breakfast", "a friend", "the kids", "work", "the budget"}
	return map[store.TagType][]string{
		store.TagPerson:        cross(given, family),
		store.TagLocation:      cross(kinds, places),
		store.TagActivity:      cross(doings, when),
		store.TagTrigger:       cross(cross(upsets, things), from),
		store.TagGoodBehaviour: cross(helped, helps),
		store.TagBadBehaviour:  cross(harmed, harms),
	}
}

// loadDecade stores ten years of analysed entries for the user, a day each
// with four situations, each naming one of every type.
func loadDecade(b *testing.B, s *store.Store, userID string) {
	loadJournal(b, s, userID, 3650, time.Now().AddDate(-10, 0, 0), 24*time.Hour)
}

// loadJournal stores n analysed entries for the user, every apart from
// start on, each with four situations naming one of every type and a
// feeling, the names drawn from decadeNames.
func loadJournal(b *testing.B, s *store.Store, userID string, n int, start time.Time, every time.Duration) {
	ctx := context.Background()
	pools := decadeNames()
	r := rand.New(rand.NewPCG(1, 1))
	felt := rand.New(rand.NewPCG(2, 2)) // apart, so the names drawn stay those of before
	feelings := []string{"anxious", "stressed", "calm", "proud", "sad", "tired", "content", "frustrated", "guilty", "grateful"}
	for d := range n {
		text := fmt.Sprintf("day %d", d)
		c := &store.Capture{UserID: userID, Original: text, OccurredAt: start.Add(time.Duration(d) * every)}
		if err := s.CreateCapture(ctx, c); err != nil {
			b.Fatal(err)
		}
		if _, err := s.ClaimCapture(ctx); err != nil {
			b.Fatal(err)
		}
		a := &store.Analysis{CaptureID: c.ID, UserID: userID, Translated: text, Language: "en"}
		for range 4 {
			var tags []store.NewTag
			for _, typ := range headerTypes {
				i := r.IntN(len(pools[typ]))
				nt := store.NewTag{Type: typ, Name: pools[typ][i]}
				if store.Categorised(typ) {
					nt.NewCategory = fmt.Sprintf("%s topic %d", typ, i%12)
				}
				tags = append(tags, nt)
			}
			f := feelings[felt.IntN(len(feelings))]
			typ := store.TagNegativeFeeling
			if f == "calm" || f == "proud" || f == "content" || f == "grateful" {
				typ = store.TagPositiveFeeling
			}
			tags = append(tags, store.NewTag{Type: typ, Name: f, FeelingID: f})
			a.Segments = append(a.Segments, store.AnalysedSegment{Start: 0, End: len(text), Tags: tags})
		}
		if err := s.CommitAnalysis(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractPrompt runs the shipped journal through the pipeline
// twice against the fake Ollama, into a new journal and into one that
// already holds ten years of entries and some 1,900 names, and reports
// the extract step's prompt tokens per capture for each and their ratio.
// The names offered are the nearest to each entry, so the ratio stays
// near 1 however long the journal. Token counts are the fake's estimates
// (a token per four bytes), so they compare prompts, not models.
func BenchmarkExtractPrompt(b *testing.B) {
	entries := loadCorpus(b)
	fake, model := scriptedModel(b)
	ctx := context.Background()
	decade := storetest.MustOpenAt(b, filepath.Join(b.TempDir(), "decade.db"), nil)
	old := storetest.MustCreateUser(b, decade, "decade@example.com")
	loadDecade(b, decade, old.ID)

	// run posts the corpus for the user and analyses it, and returns the
	// extract step's prompt tokens per capture.
	run := func(s *store.Store, userID string) float64 {
		for _, e := range entries {
			if err := s.CreateCapture(ctx, &store.Capture{UserID: userID, Original: e.Text, OccurredAt: e.OccurredAt}); err != nil {
				b.Fatal(err)
			}
		}
		fake.Reset()
		drain(b, pipeline.New(pipeline.Options{Store: s, Model: model, ModelName: "qwen2.5:7b", Logger: discard()}))
		if q, _ := s.QueueCounts(ctx); q.Queued+q.Failed != 0 {
			b.Fatalf("corpus left %+v", q)
		}
		tokens := 0
		for _, c := range fake.Calls() {
			if c.Request != nil && extracting(scripted.Step(c.Request)) {
				tokens += c.PromptTokens
			}
		}
		return float64(tokens) / float64(len(entries))
	}

	// The first run over the ten years embeds every name once; the runs
	// measured find them stored.
	run(decade, old.ID)
	var fresh, long float64
	runs := 0
	for b.Loop() {
		s := storetest.MustOpenAt(b, filepath.Join(b.TempDir(), fmt.Sprintf("new%d.db", runs)), nil)
		u := storetest.MustCreateUser(b, s, "new@example.com")
		fresh += run(s, u.ID)
		long += run(decade, old.ID)
		runs++
	}
	b.ReportMetric(fresh/float64(runs), "new_extract_tokens/capture")
	b.ReportMetric(long/float64(runs), "decade_extract_tokens/capture")
	b.ReportMetric(long/fresh, "decade/new")
}
