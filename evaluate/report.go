package evaluate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recur-journal/recur/internal/english"
)

// Report is the outcome of one evaluation, written as JSON by --json.
type Report struct {
	Model     string          `json:"model"`
	OllamaURL string          `json:"ollama_url"`
	StartedAt time.Time       `json:"started_at"`
	Journals  []JournalReport `json:"journals"`
}

// JournalReport scores one journal.
type JournalReport struct {
	Journal string `json:"journal"`
	Entries int    `json:"entries"`
	// Failed counts entries whose analysis failed (the model's answers
	// stayed unusable).
	Failed       int            `json:"failed"`
	Threads      []ThreadReport `json:"threads"`
	ThreadsFound int            `json:"threads_found"`
	// Recall is the share of planted threads that some pattern stands for.
	Recall float64  `json:"recall"`
	Missed []string `json:"missed"`
	// Patterns counts the patterns detected; MatchedPatterns those that
	// stand for a thread; Precision is their share.
	Patterns        int             `json:"patterns"`
	MatchedPatterns int             `json:"matched_patterns"`
	Precision       float64         `json:"precision"`
	Unmatched       []PatternReport `json:"unmatched"`
	// Duplicates lists found threads shown on more than one card.
	Duplicates []Duplicate `json:"duplicates"`
	// CrossedCategories lists the categories holding both a pleasant and an
	// unpleasant situation.
	CrossedCategories []string `json:"crossed_categories"`
	// LostCapitals lists the patterns whose names write a labelled person
	// or place in lower case.
	LostCapitals      []string       `json:"lost_capitals"`
	UrgentRight       int            `json:"urgent_right"`
	UrgentWrong       int            `json:"urgent_wrong"`
	Correlations      int            `json:"correlations"`
	CorrelationsRight int            `json:"correlations_right"`
	Boundaries        BoundaryReport `json:"boundaries"`
	Feelings          FeelingReport  `json:"feelings"`
	// Descriptions checks the language the patterns' descriptions are in.
	Descriptions DescriptionReport `json:"descriptions"`
	Cost         Cost              `json:"cost"`
}

// ThreadReport is how one planted thread fared.
type ThreadReport struct {
	Name     string   `json:"name"`
	Found    bool     `json:"found"`
	Patterns []string `json:"patterns"`
	Cards    int      `json:"cards"`
	// Urgent is the label; FoundUrgent whether a matching pattern is urgent.
	Urgent              bool     `json:"urgent"`
	FoundUrgent         bool     `json:"found_urgent"`
	Correlations        int      `json:"correlations"`
	CorrelationsRight   int      `json:"correlations_right"`
	MissingCorrelations []string `json:"missing_correlations"`
	// TranslatedDays are the thread's days written in another language;
	// TranslatedDaysFound how many of them its patterns rest on.
	TranslatedDays      []string `json:"translated_days,omitempty"`
	TranslatedDaysFound int      `json:"translated_days_found"`
}

// PatternReport names a pattern that stands for no thread.
type PatternReport struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Days int    `json:"days"`
}

// Duplicate is a thread shown on several cards.
type Duplicate struct {
	Thread   string   `json:"thread"`
	Cards    int      `json:"cards"`
	Patterns []string `json:"patterns"`
}

// BoundaryReport compares situation boundaries as sentence ranges.
type BoundaryReport struct {
	Labelled    int     `json:"labelled"`
	Found       int     `json:"found"`
	Right       int     `json:"right"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	NotCompared int     `json:"not_compared"`
}

// FeelingReport is the mean agreement of labelled and extracted feelings
// over the labelled situations compared.
type FeelingReport struct {
	Situations int     `json:"situations"`
	Agreement  float64 `json:"agreement"`
}

// Cost is what the analysis cost, from the model_calls table (Ollama's own
// token counts) and the clock.
type Cost struct {
	Calls        int     `json:"calls"`
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Seconds      float64 `json:"seconds"`
	// DescribeCalls are the calls that wrote pattern descriptions, which
	// belong to no one entry, and DescribePromptTokens and
	// DescribeOutputTokens their tokens; none of them is in Calls,
	// PromptTokens or OutputTokens.
	DescribeCalls        int `json:"describe_calls"`
	DescribePromptTokens int `json:"describe_prompt_tokens"`
	DescribeOutputTokens int `json:"describe_output_tokens"`
	// Per entry.
	CallsPerEntry        float64 `json:"calls_per_entry"`
	PromptTokensPerEntry float64 `json:"prompt_tokens_per_entry"`
	OutputTokensPerEntry float64 `json:"output_tokens_per_entry"`
	SecondsPerEntry      float64 `json:"seconds_per_entry"`
	// The descriptions' share per entry: their calls and tokens divided by
	// the entries, as if each entry paid for its part of them.
	DescribeCallsPerEntry        float64 `json:"describe_calls_per_entry"`
	DescribePromptTokensPerEntry float64 `json:"describe_prompt_tokens_per_entry"`
	DescribeOutputTokensPerEntry float64 `json:"describe_output_tokens_per_entry"`
	// FixedPromptTokensPerEntry estimates the prompt tokens per entry
	// that are the start each step's calls share byte for byte, which a
	// server with a prompt cache does not read again;
	// VaryingPromptTokensPerEntry the rest, which changes between calls.
	FixedPromptTokensPerEntry   float64 `json:"fixed_prompt_tokens_per_entry"`
	VaryingPromptTokensPerEntry float64 `json:"varying_prompt_tokens_per_entry"`
	// Steps are the prompt figures of each step.
	Steps []StepPrompts `json:"steps"`
}

func (c *Cost) perEntry(entries int) {
	if entries == 0 {
		return
	}
	n := float64(entries)
	c.CallsPerEntry, c.PromptTokensPerEntry = float64(c.Calls)/n, float64(c.PromptTokens)/n
	c.OutputTokensPerEntry, c.SecondsPerEntry = float64(c.OutputTokens)/n, c.Seconds/n
	c.DescribeCallsPerEntry, c.DescribePromptTokensPerEntry = float64(c.DescribeCalls)/n, float64(c.DescribePromptTokens)/n
	c.DescribeOutputTokensPerEntry = float64(c.DescribeOutputTokens) / n
}

// Print writes the report for a reader.
func (r *Report) Print(w io.Writer) error {
	fmt.Fprintf(w, "Model %s at %s\n", r.Model, r.OllamaURL)
	for _, j := range r.Journals {
		fmt.Fprintf(w, "\n== %s: %d entries, %d failed\n", j.Journal, j.Entries, j.Failed)
		fmt.Fprintf(w, "Threads found:   %d of %d (recall %s)\n", j.ThreadsFound, len(j.Threads), percent(j.Recall))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, t := range j.Threads {
			mark := "missed"
			if t.Found {
				mark = fmt.Sprintf("%d %s", t.Cards, english.Plural(t.Cards, "card", "cards"))
			}
			extra := ""
			if t.Found && t.Urgent != t.FoundUrgent {
				extra += fmt.Sprintf(" urgent wrong (labelled %t)", t.Urgent)
			}
			if len(t.MissingCorrelations) > 0 {
				extra += " lacks " + strings.Join(t.MissingCorrelations, ", ")
			}
			if len(t.TranslatedDays) > 0 {
				extra += fmt.Sprintf(" translated days %d/%d", t.TranslatedDaysFound, len(t.TranslatedDays))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", t.Name, mark, strings.Join(t.Patterns, ", "), strings.TrimSpace(extra))
		}
		tw.Flush()
		fmt.Fprintf(w, "Patterns:        %d, %d standing for no thread (precision %s)\n", j.Patterns, len(j.Unmatched), percent(j.Precision))
		for _, p := range j.Unmatched {
			fmt.Fprintf(w, "  no thread: %s (%s, %d days)\n", p.Name, strings.ReplaceAll(p.Kind, "_", " "), p.Days)
		}
		fmt.Fprintf(w, "Duplicates:      %d %s on more than one card\n", len(j.Duplicates), english.Plural(len(j.Duplicates), "thread", "threads"))
		fmt.Fprintf(w, "Crossed:         %d %s holding pleasant and unpleasant situations %s\n", len(j.CrossedCategories),
			english.Plural(len(j.CrossedCategories), "category", "categories"), strings.Join(j.CrossedCategories, "; "))
		fmt.Fprintf(w, "Capitals lost:   %d %s %s\n", len(j.LostCapitals), english.Plural(len(j.LostCapitals), "pattern", "patterns"), strings.Join(j.LostCapitals, "; "))
		fmt.Fprintf(w, "Urgent:          %d right, %d wrong\n", j.UrgentRight, j.UrgentWrong)
		fmt.Fprintf(w, "Correlations:    %d of %d right\n", j.CorrelationsRight, j.Correlations)
		b := j.Boundaries
		fmt.Fprintf(w, "Situations:      %d labelled, %d found, %d right (precision %s, recall %s; %d entries not compared)\n",
			b.Labelled, b.Found, b.Right, percent(b.Precision), percent(b.Recall), b.NotCompared)
		fmt.Fprintf(w, "Feelings:        %s agreement over %d situations\n", percent(j.Feelings.Agreement), j.Feelings.Situations)
		d := j.Descriptions
		fmt.Fprintf(w, "Descriptions:    %d of %d in %s %s\n", d.InLanguage, d.Written, d.Language, strings.Join(d.Wrong, "; "))
		c := j.Cost
		fmt.Fprintf(w, "Cost per entry:  %.1f calls, %.0f prompt and %.0f output tokens, %.2f s\n",
			c.CallsPerEntry, c.PromptTokensPerEntry, c.OutputTokensPerEntry, c.SecondsPerEntry)
		fmt.Fprintf(w, "Descriptions:    %d calls, %d prompt and %d output tokens (per entry %.2f calls, %.0f prompt and %.0f output tokens more)\n",
			c.DescribeCalls, c.DescribePromptTokens, c.DescribeOutputTokens, c.DescribeCallsPerEntry, c.DescribePromptTokensPerEntry, c.DescribeOutputTokensPerEntry)
		printPrompts(w, c)
	}
	return nil
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }
