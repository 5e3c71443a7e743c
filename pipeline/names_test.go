package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
	"github.com/recur-journal/recur/store"
)

// offeredEach is the bound on the names of one type offered to extract
// besides those the entry mentions.
const offeredEach = 8

// headerTypes are the tag types the extract prompt offers names of.
var headerTypes = []store.TagType{store.TagPerson, store.TagLocation, store.TagActivity, store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour}

// seedNames commits one old capture holding the given names of each type,
// as a journal that has used them would.
func (e *env) seedNames(names map[store.TagType][]string) {
	e.t.Helper()
	var tags []store.NewTag
	for typ, list := range names {
		for i, n := range list {
			nt := store.NewTag{Type: typ, Name: n}
			if store.Categorised(typ) {
				nt.NewCategory = fmt.Sprintf("old topic %d", i%5)
			}
			tags = append(tags, nt)
		}
	}
	e.seedTags(tags)
}

// seedTags commits one old capture holding the tags.
func (e *env) seedTags(tags []store.NewTag) {
	e.t.Helper()
	ctx := context.Background()
	old := &store.Capture{UserID: e.user.ID, Original: "an old entry", OccurredAt: e.store.Now().AddDate(-1, 0, 0)}
	if err := e.store.CreateCapture(ctx, old); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.ClaimCapture(ctx); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.CommitAnalysis(ctx, &store.Analysis{CaptureID: old.ID, UserID: e.user.ID, Translated: old.Original,
		Segments: []store.AnalysedSegment{{Start: 0, End: len(old.Original), Tags: tags}}}); err != nil {
		e.t.Fatal(err)
	}
}

// fillers are n names of one kind that share no word with any entry here.
func fillers(kind string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", kind, i)
	}
	return out
}

// wordEmbedding scripts the fake's embeddings so that texts are near
// exactly when they share words: every word gets a dimension of its own.
func wordEmbedding(fake *fakeollama.Server) {
	var mu sync.Mutex
	dims := map[string]int{}
	fake.OnEmbed(func(text string) []float32 {
		mu.Lock()
		defer mu.Unlock()
		v := make([]float32, 4096)
		for _, w := range strings.Fields(strings.ToLower(text)) {
			w = strings.Trim(w, ".,!?;:'\"")
			if _, ok := dims[w]; !ok {
				dims[w] = len(dims) % len(v)
			}
			v[dims[w]]++
		}
		return v
	})
}

// extractHeaders returns, for each extract call so far, the names offered
// per type, read from the "Names the writer already uses" header.
func extractHeaders(t *testing.T, fake *fakeollama.Server) []map[store.TagType][]string {
	t.Helper()
	var out []map[store.TagType][]string
	for _, call := range fake.Calls() {
		if call.Request == nil || !extracting(scripted.Step(call.Request)) {
			continue
		}
		user := call.Request.Messages[len(call.Request.Messages)-1].Content
		head, _, ok := strings.Cut(user, "\n\n")
		if !ok || !strings.HasPrefix(head, "Names the writer already uses:\n") {
			t.Fatalf("extract prompt without its names header:\n%s", user)
		}
		offered := map[store.TagType][]string{}
		for _, typ := range headerTypes {
			label := map[store.TagType]string{store.TagActivity: "activities: "}[typ]
			if label == "" {
				label = strings.ReplaceAll(string(typ), "_", " ") + "s: "
			}
			i := strings.Index(head, "\n"+label)
			if i < 0 {
				t.Fatalf("the header lacks a line for %s:\n%s", typ, head)
			}
			line, _, _ := strings.Cut(head[i+1+len(label):], "\n")
			if line != "(none)" {
				offered[typ] = strings.Split(line, "; ")
			}
		}
		out = append(out, offered)
	}
	if len(out) == 0 {
		t.Fatal("no extract call was made")
	}
	return out
}

func TestExtractNames(t *testing.T) {
	t.Parallel()
	t.Run("NearestOfHundreds", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		wordEmbedding(e.fake)
		names := map[store.TagType][]string{}
		for _, typ := range headerTypes {
			names[typ] = fillers(strings.ReplaceAll(string(typ), "_", ""), 200)
		}
		// Nine persons share two words each with the entry, out of order:
		// nearer by embedding than "Carmen", which the entry mentions (in
		// another case) and so is offered all the same.
		near := []string{"calm walked", "along called", "felt while", "canal calm", "called felt", "walked calm", "along felt", "while canal", "calm along"}
		names[store.TagPerson] = append(names[store.TagPerson], near...)
		names[store.TagPerson] = append(names[store.TagPerson], "Carmen")
		names[store.TagLocation] = append(names[store.TagLocation], "The Canal", "canal towpath")
		e.seedNames(names)
		e.start()
		e.waitStatus(e.capture("carmen called while I walked along the canal. I felt calm.").ID, store.StatusProcessed)

		offered := extractHeaders(t, e.fake)[0]
		for _, typ := range headerTypes {
			want := offeredEach
			if store.Categorised(typ) {
				want = 5 // one name for each of its categories (seedNames makes five)
			}
			if got := len(offered[typ]); got != want {
				t.Errorf("%d %s names offered of %d, want %d: %q", got, typ, len(names[typ]), want, offered[typ])
			}
		}
		for typ, want := range map[store.TagType][]string{store.TagPerson: {"Carmen"}, store.TagLocation: {"The Canal", "canal towpath"}} {
			for _, n := range want {
				if !contains(offered[typ], n) {
					t.Errorf("%s %q not offered; offered %q", typ, n, offered[typ])
				}
			}
		}
		for _, n := range offered[store.TagPerson] {
			if n != "Carmen" && !contains(near, n) {
				t.Errorf("person %q offered before the nearer ones; offered %q", n, offered[store.TagPerson])
			}
		}
	})

	t.Run("EmbeddedOnce", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		wordEmbedding(e.fake)
		e.seedNames(map[store.TagType][]string{store.TagPerson: fillers("person", 150), store.TagActivity: fillers("activity", 150)})
		e.start()
		e.waitStatus(e.capture("Lunch alone today. I felt calm.").ID, store.StatusProcessed)
		ctx := context.Background()
		stored, err := e.store.TagEmbeddings(ctx, e.user.ID, store.TagPerson, store.TagActivity)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(stored), 300; got < want {
			t.Fatalf("%d names embedded and stored after the first run, want all %d", got, want)
		}
		embedded := map[string]bool{}
		for _, c := range e.fake.Calls() {
			for _, in := range c.Input {
				embedded[in] = true
			}
		}
		e.fake.Reset()
		e.waitStatus(e.capture("Dinner alone today. I felt calm.").ID, store.StatusProcessed)
		calls := 0
		for _, c := range e.fake.Calls() {
			if c.Path != "/api/embed" {
				continue
			}
			calls++
			for _, in := range c.Input {
				if embedded[in] && !strings.Contains(in, "today") {
					t.Errorf("the name %q was embedded again", in)
				}
			}
		}
		if calls != 1 {
			t.Errorf("the second run made %d embed calls, want 1 (the entry's text)", calls)
		}
	})

	t.Run("FewNamesNoEmbedding", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		few := []string{"Anna", "Jonas", "Mika"}
		e.seedNames(map[store.TagType][]string{store.TagPerson: few})
		e.start()
		e.waitStatus(e.capture("A quiet walk. I felt calm.").ID, store.StatusProcessed)
		if st := e.fake.Stats(); st.EmbedCalls != 0 {
			t.Errorf("%d embed calls for a journal with %d names, want none", st.EmbedCalls, len(few))
		}
		offered := extractHeaders(t, e.fake)[0]
		for _, n := range few {
			if !contains(offered[store.TagPerson], n) {
				t.Errorf("person %q not offered; offered %q", n, offered[store.TagPerson])
			}
		}
	})

	t.Run("EmbedFaultWaits", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.seedNames(map[store.TagType][]string{store.TagLocation: fillers("place", 50)})
		e.fake.SetModels("qwen2.5:7b") // the embedding model is not pulled
		e.start()
		c := e.capture("A walk by the river. I felt calm.")
		wait.Eventually(t, 10*time.Second, "analysis waits after the embed call failed", e.pipe.Waiting, nil)
		got, err := e.store.FindCapture(context.Background(), e.user.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == store.StatusFailed {
			t.Fatal("an embed call that Ollama could not answer failed the capture")
		}
		e.fake.SetModels(fakeollama.DefaultModels...)
		e.waitStatus(c.ID, store.StatusProcessed)
	})
}
