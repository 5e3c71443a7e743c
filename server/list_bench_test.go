package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/server/openapitest"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// listJournal is a served journal of a given size, read with a token.
type listJournal struct {
	url   string
	token string
	check *openapitest.Checker // checks an answer against the OpenAPI document
}

// newListJournal serves a user with n captures: a few processed ones that
// make patterns, the rest imported, a few a day going back in time.
func newListJournal(b *testing.B, n int) *listJournal {
	b.Helper()
	ctx := context.Background()
	s := storetest.MustOpen(b)
	u := storetest.MustCreateUser(b, s, "bench@example.com")
	now := s.Now().UTC()
	const analysed = 30
	triggers := []string{"criticism", "late train", "deadline"}
	for d := range analysed {
		c := &store.Capture{UserID: u.ID, Original: "My boss criticised my report and I skipped lunch.", OccurredAt: now.AddDate(0, 0, -d)}
		if err := s.CreateCapture(ctx, c); err != nil {
			b.Fatal(err)
		}
		if _, err := s.ClaimCapture(ctx); err != nil {
			b.Fatal(err)
		}
		tags := []store.NewTag{
			{Type: store.TagTrigger, Name: triggers[d%len(triggers)], NewCategory: triggers[d%len(triggers)]},
			{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"},
			{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"},
		}
		if err := s.CommitAnalysis(ctx, &store.Analysis{CaptureID: c.ID, UserID: u.ID, Translated: c.Original, Language: "en",
			Segments: []store.AnalysedSegment{{Start: 0, End: len(c.Original), Tags: tags}}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := detect.NewDetector(s, nil).Detect(ctx, u.ID); err != nil {
		b.Fatal(err)
	}
	entries := make([]store.ImportEntry, n-analysed)
	for i := range entries {
		entries[i] = store.ImportEntry{OccurredAt: now.Add(-time.Duration(analysed*24+i*3) * time.Hour),
			Text: fmt.Sprintf("Entry %d: an ordinary day with a walk and some reading.", i), Source: strconv.Itoa(i)}
	}
	if _, err := s.ImportCaptures(ctx, u.ID, "bench", entries); err != nil {
		b.Fatal(err)
	}
	srv, api := startServer(b, s)
	return &listJournal{url: srv.URL, token: storetest.MustCreateToken(b, s, u.ID),
		check: newDocCheck(b, api.Handler())}
}

// get reads path and fails unless it answers 200; checked holds the
// request and its answer to the OpenAPI document.
func (j *listJournal) get(b *testing.B, path string, checked bool) {
	req, err := http.NewRequest(http.MethodGet, j.url+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	var rt http.RoundTripper = http.DefaultTransport
	if checked {
		req, rt = sentBy(req, b), j.check
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+j.token)
	res, err := rt.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		b.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s = %d", path, res.StatusCode)
	}
}

// BenchmarkList reads the first and a middle page of the capture and the
// pattern lists of journals of 1,000 and 25,000 captures, and the captures
// filtered by a feeling (30 of them) and by a person no entry names, over
// HTTP with a token: the time per list read should not grow with the
// journal (the target is within 15 % of each other).
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1000, 25000} {
		j := newListJournal(b, n)
		for _, list := range []struct{ name, path string }{
			{"captures", "/api/captures"},
			{"captures-page-20", "/api/captures?page=20"},
			{"patterns", "/api/patterns"},
			{"captures-feeling", "/api/captures?feeling=anxious"},
			{"captures-person", "/api/captures?person=nobody"},
		} {
			path := list.path
			b.Run(fmt.Sprintf("%s/%d", list.name, n), func(b *testing.B) {
				j.get(b, path, true)
				for b.Loop() {
					j.get(b, path, false)
				}
			})
		}
	}
}
