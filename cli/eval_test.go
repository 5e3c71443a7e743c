package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/evaluate"
	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/fakeopenai"
	"github.com/recur-journal/recur/pipeline/scripted"
)

// evalFloor is what the shipped journals must keep when read by the
// scripted model: set from the figures of the day these journals shipped
// (every thread found, precision 100% on both). Precision may lose one stray
// pattern in seven before the build fails.
var evalFloor = struct {
	precision float64
	// duplicateThreads bounds the threads shown on more than one card: the
	// patterns of one loop share a card (cards in evaluate/score.go).
	duplicateThreads map[string]int
	// promptPerEntry bounds the prompt tokens per entry at what recur eval
	// reported when the steps' fixed starts were found to have grown
	// (camille's: the day it shipped). The prompts say each rule once and
	// stay well under; a fixed start that grows back past it fails.
	promptPerEntry map[string]float64
}{precision: 0.85, duplicateThreads: map[string]int{"maya": 0, "jonas": 0},
	promptPerEntry: map[string]float64{"maya": 1171, "jonas": 1351, "lou": 1130, "camille": 1225}}

// TestEvalShippedJournals runs recur eval end to end against the fake
// Ollama, for every shipped journal, with the journal's lexicon as the
// model. It fails when a planted thread is lost, when a thread found on a
// translated entry loses that entry, when precision falls under the floor,
// when more threads than today show on several cards, when a pattern's
// description is not in the journal's locale, or when an entry's prompt
// grows past its bound.
func TestEvalShippedJournals(t *testing.T) {
	journals, err := evaluate.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range journals {
		for _, provider := range []string{"ollama", "openai"} {
			t.Run(j.Name+"/"+provider, func(t *testing.T) {
				lex, err := scripted.Load(filepath.Join("evaluate", "journals", j.Name+".lexicon.json"))
				if err != nil {
					t.Fatal(err)
				}
				url, env := evalModelServer(t, provider, lex)
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp) // where the throwaway data folder goes
				out := filepath.Join(t.TempDir(), "report.json")
				var stdout, stderr bytes.Buffer
				m := NewMain()
				m.Stdout, m.Stderr = &stdout, &stderr
				m.Env = append(env, "RECUR_STORAGE_DATA_DIR="+t.TempDir())
				if err := m.ParseFlags([]string{"eval", j.Name, "--ollama", url, "--json", out}); err != nil {
					t.Fatal(err)
				}
				if err := m.Run(context.Background()); err != nil {
					t.Fatalf("recur eval: %v\n%s", err, stderr.String())
				}
				m.Close()

				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("the throwaway data folder was left behind: %v", left)
				}
				if !strings.Contains(stderr.String(), "100% "+itoa(len(j.Entries))+"/"+itoa(len(j.Entries))+" analysed") {
					t.Errorf("no finished progress bar on stderr:\n%s", stderr.String())
				}
				if !strings.Contains(stdout.String(), "== "+j.Name) || !strings.Contains(stdout.String(), "Threads found:") {
					t.Errorf("report on stdout:\n%s", stdout.String())
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				var rep evaluate.Report
				if err := json.Unmarshal(b, &rep); err != nil {
					t.Fatal(err)
				}
				if len(rep.Journals) != 1 {
					t.Fatalf("report of %d journals, want 1", len(rep.Journals))
				}
				r := rep.Journals[0]
				t.Logf("%s: recall %.2f precision %.2f duplicates %d urgent %d/%d correlations %d/%d situations P%.2f R%.2f feelings %.2f calls/entry %.1f prompt/entry %.0f output/entry %.0f crossed %d capitals lost %d",
					j.Name, r.Recall, r.Precision, len(r.Duplicates), r.UrgentRight, r.UrgentRight+r.UrgentWrong, r.CorrelationsRight, r.Correlations,
					r.Boundaries.Precision, r.Boundaries.Recall, r.Feelings.Agreement, r.Cost.CallsPerEntry, r.Cost.PromptTokensPerEntry, r.Cost.OutputTokensPerEntry, len(r.CrossedCategories), len(r.LostCapitals))
				t.Logf("%s: prompt tokens per entry %.0f, ~%.0f the steps' fixed starts, ~%.0f changing", j.Name,
					r.Cost.PromptTokensPerEntry, r.Cost.FixedPromptTokensPerEntry, r.Cost.VaryingPromptTokensPerEntry)
				if r.Cost.FixedPromptTokensPerEntry <= 0 || r.Cost.VaryingPromptTokensPerEntry <= 0 || len(r.Cost.Steps) < 3 {
					t.Errorf("cost %+v; want each step's prompt tokens split into the fixed start and the changing rest", r.Cost)
				}
				if limit, ok := evalFloor.promptPerEntry[j.Name]; !ok || r.Cost.PromptTokensPerEntry > limit {
					t.Errorf("%.0f prompt tokens per entry, want at most %.0f:\n%s", r.Cost.PromptTokensPerEntry, limit, stdout.String())
				}
				if !strings.Contains(stdout.String(), "Prompt per entry:") {
					t.Errorf("the report on stdout does not split the prompt:\n%s", stdout.String())
				}
				if r.Failed != 0 {
					t.Errorf("%d entries failed", r.Failed)
				}
				if len(r.Missed) != 0 {
					t.Errorf("planted threads lost: %v\n%s", r.Missed, stdout.String())
				}
				for _, th := range r.Threads {
					if th.TranslatedDaysFound != len(th.TranslatedDays) {
						t.Errorf("thread %q lost translated entries: %d of %v found", th.Name, th.TranslatedDaysFound, th.TranslatedDays)
					}
				}
				if r.Precision < evalFloor.precision {
					t.Errorf("precision %.2f under %.2f; patterns standing for no thread: %+v", r.Precision, evalFloor.precision, r.Unmatched)
				}
				if n := len(r.Duplicates); n > evalFloor.duplicateThreads[j.Name] {
					t.Errorf("%d threads on more than one card, want at most %d: %+v", n, evalFloor.duplicateThreads[j.Name], r.Duplicates)
				}
				if len(r.LostCapitals) != 0 {
					t.Errorf("patterns writing a person or place in lower case: %q", r.LostCapitals)
				}
				if len(r.CrossedCategories) != 0 {
					t.Errorf("categories holding pleasant and unpleasant situations: %q", r.CrossedCategories)
				}
				d := r.Descriptions
				t.Logf("%s: descriptions %d of %d in %s", j.Name, d.InLanguage, d.Written, d.Language)
				if len(d.Wrong) != 0 || d.Written == 0 {
					t.Errorf("descriptions in another language than %s, or none: %d of %d right, %q", d.Language, d.InLanguage, d.Written, d.Wrong)
				}
				t.Logf("%s: descriptions %d calls, %d prompt and %d output tokens (%.2f calls per entry)", j.Name,
					r.Cost.DescribeCalls, r.Cost.DescribePromptTokens, r.Cost.DescribeOutputTokens, r.Cost.DescribeCallsPerEntry)
				if r.Cost.DescribeCalls == 0 || r.Cost.DescribePromptTokens == 0 || r.Cost.DescribeOutputTokens == 0 || r.Cost.DescribeCallsPerEntry == 0 {
					t.Errorf("describe calls not in the cost: %+v", r.Cost)
				}
				if r.Cost.Calls == 0 || r.Cost.PromptTokens == 0 {
					t.Errorf("cost not read from the model calls: %+v", r.Cost)
				}
			})
		}
	}
}

// evalModelServer starts a stand-in model server of the provider answering
// from lex, and returns its URL and the variables that configure Recur for
// it: the OpenAI-compatible one wants a key.
func evalModelServer(t *testing.T, provider string, lex *scripted.Lexicon) (string, []string) {
	if provider == "ollama" {
		fake := fakeollama.New(t)
		fake.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })
		return fake.URL(), nil
	}
	const key = "sk-eval-key"
	fake := fakeopenai.New(t)
	fake.RequireKey(key)
	fake.OnChat(func(req *fakeopenai.ChatRequest) fakeopenai.Reply {
		return fakeopenai.Reply{Content: lex.Answer(scripted.Request(req.Text()))}
	})
	return fake.URL(), []string{"RECUR_MODEL_PROVIDER=openai", "RECUR_MODEL_API_KEY=" + key,
		"RECUR_MODEL_NAME=" + fakeopenai.DefaultModels[0], "RECUR_MODEL_EMBED_NAME=" + fakeopenai.DefaultModels[1]}
}

func itoa(n int) string { return strconv.Itoa(n) }
