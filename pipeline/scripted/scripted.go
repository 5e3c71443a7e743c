// Package scripted is a rule-based stand-in for the language model, for
// tests and benchmarks: it answers each step of a capture run the way a
// model would, from a lexicon of words it "understands". Put behind the
// fake Ollama server, it lets the real client and pipeline run end to end.
package scripted

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// Lexicon is what the scripted model knows.
type Lexicon struct {
	// Feelings maps a vocabulary feeling to the words that signal it.
	Feelings map[string][]string `json:"feelings"`
	// Triggers and behaviours map a name to its signal words and category.
	Triggers       map[string]Entry `json:"triggers"`
	GoodBehaviours map[string]Entry `json:"good_behaviours"`
	BadBehaviours  map[string]Entry `json:"bad_behaviours"`
	// Persons, locations and activities map a name to its signal words.
	Persons    map[string][]string `json:"persons"`
	Locations  map[string][]string `json:"locations"`
	Activities map[string][]string `json:"activities"`
	// Translations maps an original text to its language and English.
	Translations map[string]Translation `json:"translations"`
}

// Entry is a trigger or behaviour the lexicon knows.
type Entry struct {
	Words    []string `json:"words"`
	Category string   `json:"category"`
}

// Translation is a known translation.
type Translation struct {
	Language    string `json:"language"`
	Translation string `json:"translation"`
}

// Load reads a lexicon from a JSON file.
func Load(path string) (*Lexicon, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Lexicon
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}

// Step names the step a request belongs to, from its system prompt.
func Step(req *api.ChatRequest) string {
	if len(req.Messages) == 0 {
		return ""
	}
	sys := req.Messages[0].Content
	switch {
	case strings.HasPrefix(sys, "You translate"):
		return "translate"
	case strings.HasPrefix(sys, "You read a personal journal entry given as numbered sentences, find its situations and note"):
		return "segment_extract"
	case strings.HasPrefix(sys, "You read a personal journal entry given as numbered sentences"):
		return "segment"
	case strings.HasPrefix(sys, "You read the numbered situations"):
		return "extract"
	case strings.HasPrefix(sys, "You group"):
		return "categorise"
	case strings.HasPrefix(sys, "You write the description"):
		return "describe"
	case strings.HasPrefix(sys, "You name the topics"):
		return "name"
	}
	return ""
}

// Answer returns the JSON content the model would answer to req.
func (l *Lexicon) Answer(req *api.ChatRequest) string {
	user := ""
	if len(req.Messages) > 1 {
		user = req.Messages[len(req.Messages)-1].Content
	}
	var v any
	switch Step(req) {
	case "translate":
		t, ok := l.Translations[user]
		if !ok {
			t = Translation{Language: "en", Translation: user}
		}
		v = map[string]any{"language": t.Language, "parts": l.parts(t.Translation)}
	case "segment":
		v = map[string]any{"situations": l.segment(lines(user))}
	case "extract":
		_, after, _ := strings.Cut(user, "Situations:\n")
		v = map[string]any{"situations": l.extract(lines(after))}
	case "segment_extract":
		_, after, _ := strings.Cut(user, "Sentences:\n")
		v = map[string]any{"situations": l.read(lines(after))}
	case "categorise":
		v = map[string]any{"assignments": l.categorise(user)}
	case "describe":
		v = map[string]any{"description": describe(user)}
	case "name":
		v = map[string]any{"names": names(user)}
	default:
		return "{}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var lineRE = regexp.MustCompile(`^\[([a-z]*\d+)\] (.*)$`)

// numberedLine is one "[ref] text" line of a prompt.
type numberedLine struct {
	ref  string
	text string
}

func lines(s string) []numberedLine {
	var out []numberedLine
	for _, ln := range strings.Split(s, "\n") {
		if m := lineRE.FindStringSubmatch(ln); m != nil {
			out = append(out, numberedLine{m[1], m[2]})
		}
	}
	return out
}

func has(text string, words []string) bool {
	t := strings.ToLower(text)
	for _, w := range words {
		if strings.Contains(t, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

func matches(text string, names map[string][]string) []string {
	out := []string{}
	for name, words := range names {
		if has(text, words) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func matchEntries(text string, entries map[string]Entry) []string {
	out := []string{}
	for name, e := range entries {
		if has(text, e.Words) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// segment starts a situation at each sentence naming a trigger or a good
// behaviour, extends it over sentences that name something else, and skips
// sentences naming nothing (which also end the situation).
func (l *Lexicon) segment(sentences []numberedLine) []map[string]int {
	out := []map[string]int{}
	open := false
	for _, s := range sentences {
		n, _ := strconv.Atoi(s.ref)
		starts := len(matchEntries(s.text, l.Triggers)) > 0 || len(matchEntries(s.text, l.GoodBehaviours)) > 0
		anything := starts || len(l.tagsOf(s.text)) > 0
		switch {
		case !anything:
			open = false
		case starts || !open:
			out = append(out, map[string]int{"first": n, "last": n})
			open = true
		default:
			out[len(out)-1]["last"] = n
		}
	}
	return out
}

// read segments the numbered sentences as segment does and extracts each
// situation found as extract does, in one answer: each situation has its
// first and last sentence and its tags.
func (l *Lexicon) read(sentences []numberedLine) []map[string]any {
	out := []map[string]any{}
	for _, r := range l.segment(sentences) {
		var text []string
		for _, s := range sentences {
			if n, _ := strconv.Atoi(s.ref); n >= r["first"] && n <= r["last"] {
				text = append(text, s.text)
			}
		}
		item := l.extract([]numberedLine{{"1", strings.Join(text, " ")}})[0]
		delete(item, "situation")
		item["first"], item["last"] = r["first"], r["last"]
		out = append(out, item)
	}
	return out
}

// sentenceEnd ends a sentence: a stop, any closing quotes, then space.
var sentenceEnd = regexp.MustCompile(`[.!?…]["'”’)]*\s+`)

// parts cuts an English text into the parts of a translate answer: it
// splits the text into sentences, finds the situations as segment does,
// and gives each situation as a part and each run of sentences between
// them as an "other" part.
func (l *Lexicon) parts(text string) []map[string]string {
	var sentences []numberedLine
	start := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		sentences = append(sentences, numberedLine{strconv.Itoa(len(sentences) + 1), strings.TrimSpace(text[start:m[1]])})
		start = m[1]
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		sentences = append(sentences, numberedLine{strconv.Itoa(len(sentences) + 1), rest})
	}
	out := []map[string]string{}
	join := func(from, to int, kind string) { // sentences from..to, counted from 1
		if from > to {
			return
		}
		var t []string
		for _, s := range sentences[from-1 : to] {
			t = append(t, s.text)
		}
		out = append(out, map[string]string{"text": strings.Join(t, " "), "kind": kind})
	}
	next := 1
	for _, r := range l.segment(sentences) {
		join(next, r["first"]-1, "other")
		join(r["first"], r["last"], "situation")
		next = r["last"] + 1
	}
	join(next, len(sentences), "other")
	return out
}

// tagsOf lists every name the lexicon finds in text, by list.
func (l *Lexicon) tagsOf(text string) map[string][]string {
	found := map[string][]string{}
	add := func(key string, names []string) {
		if len(names) > 0 {
			found[key] = names
		}
	}
	add("feelings", matches(text, l.Feelings))
	add("triggers", matchEntries(text, l.Triggers))
	add("good_behaviours", matchEntries(text, l.GoodBehaviours))
	add("bad_behaviours", matchEntries(text, l.BadBehaviours))
	add("persons", matches(text, l.Persons))
	add("locations", matches(text, l.Locations))
	add("activities", matches(text, l.Activities))
	return found
}

func (l *Lexicon) extract(situations []numberedLine) []map[string]any {
	out := []map[string]any{}
	for _, s := range situations {
		n, _ := strconv.Atoi(s.ref)
		found := l.tagsOf(s.text)
		item := map[string]any{"situation": n}
		for _, key := range []string{"feelings", "triggers", "good_behaviours", "bad_behaviours", "persons", "locations", "activities"} {
			names := found[key]
			if names == nil {
				names = []string{}
			}
			if key == "feelings" && len(names) > 4 {
				names = names[:4]
			}
			item[key] = names
		}
		out = append(out, item)
	}
	return out
}

// categorise puts each new item in the offered category named as the
// lexicon's category for it, or founds that category.
func (l *Lexicon) categorise(user string) []map[string]string {
	offered := map[string]string{} // category name -> ref
	var items []numberedLine
	for _, ln := range lines(user) {
		switch {
		case strings.HasPrefix(ln.ref, "s"): // a situation
		case strings.HasPrefix(ln.ref, "c"):
			offered[strings.ToLower(ln.text)] = ln.ref
		default:
			items = append(items, ln)
		}
	}
	out := []map[string]string{}
	for _, it := range items {
		category := it.text
		for _, entries := range []map[string]Entry{l.Triggers, l.GoodBehaviours, l.BadBehaviours} {
			if e, ok := entries[it.text]; ok && e.Category != "" {
				category = e.Category
			}
		}
		a := map[string]string{"item": it.ref, "category": "", "new_category": category}
		if ref, ok := offered[strings.ToLower(category)]; ok && ref[1] == it.ref[0] {
			a["category"], a["new_category"] = ref, ""
		}
		out = append(out, a)
	}
	return out
}

var (
	describeLine = regexp.MustCompile(`(?m)^(Language|Pattern|Loop|Feelings it comes with): (.*)$`)
	kindNote     = regexp.MustCompile(` \([a-z ]+\)`)
)

// describe writes a two-sentence description from the prompt's header
// lines, in Portuguese or French when asked for it and in English
// otherwise. A loop is told whole: "criticism at work, then staying late, skipping meals".
func describe(user string) string {
	fields := map[string]string{}
	for _, m := range describeLine.FindAllStringSubmatch(user, -1) {
		fields[m[1]] = m[2]
	}
	pattern, _, _ := strings.Cut(fields["Pattern"], " (")
	if loop, _, ok := strings.Cut(fields["Loop"], ". "); ok {
		pattern = kindNote.ReplaceAllString(loop, "")
	}
	switch {
	case strings.Contains(fields["Language"], "Portuguese"):
		return fmt.Sprintf("Isto volta muitas vezes: %s. Costuma sentir-se %s.", pattern, fields["Feelings it comes with"])
	case strings.Contains(fields["Language"], "French"):
		return fmt.Sprintf("Cela revient souvent dans votre journal : %s. Vous vous sentez alors le plus souvent %s, et cela vous reste un moment.",
			pattern, fields["Feelings it comes with"])
	}
	return fmt.Sprintf("This keeps coming back for you: %s. You tend to feel %s when it does.", pattern, fields["Feelings it comes with"])
}

// Request is a chat request of a system and a user message, as the
// pipeline sends them, for Step and Answer.
func Request(system, user string) *api.ChatRequest {
	return &api.ChatRequest{Messages: []api.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}}
}

var topicLine = regexp.MustCompile(`(?m)^\d+\. (.*) \([a-z ]+\)$`)

// names answers a name call with each topic's English name: the lexicon
// knows no other language, and the pages then show the English name.
func names(user string) []string {
	out := []string{}
	for _, m := range topicLine.FindAllStringSubmatch(user, -1) {
		out = append(out, m[1])
	}
	return out
}
