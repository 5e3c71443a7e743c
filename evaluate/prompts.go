package evaluate

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"

	"github.com/recur-journal/recur/pipeline"
)

// StepPrompts is what one step's prompts cost, and how much of each is the
// start every call of the step shares byte for byte (its instructions,
// vocabulary and schema): the part a model server keeps in its prompt
// cache and does not read again.
type StepPrompts struct {
	Step  string `json:"step"`
	Calls int    `json:"calls"`
	// PromptTokens totals the prompt tokens the server reported;
	// PromptBytes the bytes of the prompts sent (system and user message).
	PromptTokens int `json:"prompt_tokens"`
	PromptBytes  int `json:"prompt_bytes"`
	// FixedBytes is the length of the start all the step's prompts share;
	// 0 with a single call, where it cannot be told.
	FixedBytes int `json:"fixed_bytes"`
	// FixedTokens estimates FixedBytes in tokens, at the step's tokens per
	// byte; VaryingTokensPerCall is the rest of a call's prompt, read anew
	// every call.
	PromptTokensPerCall  float64 `json:"prompt_tokens_per_call"`
	FixedTokens          float64 `json:"fixed_tokens"`
	VaryingTokensPerCall float64 `json:"varying_tokens_per_call"`
}

// promptMeter keeps, per step, the prompts' sizes and the start they share.
type promptMeter struct {
	mu    sync.Mutex
	steps map[string]*stepMeter
}

type stepMeter struct {
	calls, tokens, bytes int
	prefix               string // the start every prompt so far shares
}

// record notes one call's prompt and its reported prompt tokens.
func (m *promptMeter) record(req pipeline.ChatRequest, tokens int) {
	text := req.System + "\n" + req.User // the order the server reads them in
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.steps == nil {
		m.steps = map[string]*stepMeter{}
	}
	s := m.steps[req.Step]
	if s == nil {
		s = &stepMeter{prefix: text}
		m.steps[req.Step] = s
	}
	s.calls++
	s.tokens += tokens
	s.bytes += len(text)
	s.prefix = s.prefix[:commonPrefix(s.prefix, text)]
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// report is each step's figures, in the order of the analysis.
func (m *promptMeter) report() []StepPrompts {
	m.mu.Lock()
	defer m.mu.Unlock()
	order := []string{pipeline.StepTranslate, pipeline.StepSegment, pipeline.StepSegmentExtract, pipeline.StepExtract, pipeline.StepCategorise, pipeline.StepDescribe, pipeline.StepName}
	var out []StepPrompts
	for name, s := range m.steps {
		sp := StepPrompts{Step: name, Calls: s.calls, PromptTokens: s.tokens, PromptBytes: s.bytes}
		if s.calls > 1 {
			sp.FixedBytes = len(s.prefix)
		}
		sp.PromptTokensPerCall = float64(s.tokens) / float64(s.calls)
		if s.bytes > 0 {
			sp.FixedTokens = float64(sp.FixedBytes) * float64(s.tokens) / float64(s.bytes)
		}
		sp.VaryingTokensPerCall = max(sp.PromptTokensPerCall-sp.FixedTokens, 0)
		out = append(out, sp)
	}
	slices.SortFunc(out, func(a, b StepPrompts) int {
		ia, ib := slices.Index(order, a.Step), slices.Index(order, b.Step)
		if ia == -1 || ib == -1 {
			return len(a.Step) - len(b.Step)
		}
		return ia - ib
	})
	return out
}

// splitPerEntry is the prompt tokens per entry that the steps' shared
// starts make up, and the rest, over the calls that belong to entries
// (descriptions and pattern names belong to none).
func splitPerEntry(steps []StepPrompts, entries int) (fixed, varying float64) {
	if entries == 0 {
		return 0, 0
	}
	for _, s := range steps {
		if s.Step == pipeline.StepDescribe || s.Step == pipeline.StepName {
			continue
		}
		fixed += s.FixedTokens * float64(s.Calls)
		varying += s.VaryingTokensPerCall * float64(s.Calls)
	}
	return fixed / float64(entries), varying / float64(entries)
}

// printPrompts writes the prompt lines of a journal's report.
func printPrompts(w io.Writer, c Cost) {
	fmt.Fprintf(w, "Prompt per entry: %.0f tokens, ~%.0f of them the steps' fixed starts (a server's prompt cache keeps them), ~%.0f changing\n",
		c.PromptTokensPerEntry, c.FixedPromptTokensPerEntry, c.VaryingPromptTokensPerEntry)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range c.Steps {
		fmt.Fprintf(tw, "  %s\t%d calls\t%.0f prompt tokens a call\tfixed start %d bytes (~%.0f tokens)\t~%.0f tokens changing\n",
			s.Step, s.Calls, s.PromptTokensPerCall, s.FixedBytes, s.FixedTokens, s.VaryingTokensPerCall)
	}
	tw.Flush()
}
