package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/recur-journal/recur/store"
)

// StepDescribe names the call that writes a pattern's description.
const StepDescribe = "describe"

// describeSituations bounds how many of a pattern's situations (the most
// recent) the description is written from.
const describeSituations = 8

// describeSchema bounds the description's length and, by its pattern, keeps
// out double quotation marks of every script; advice cannot be written as a
// pattern RE2 checks, so the schema's description states it and
// checkDescription refuses it.
var describeSchema = json.RawMessage(`{"type":"object","properties":{"description":{"type":"string","maxLength":700,` +
	`"pattern":"^[^\"“”„‟«»「」『』]*$",` +
	`"description":"two to four sentences to the writer, with no quotation marks and no advice"}},` +
	`"required":["description"],"additionalProperties":false}`)

var describeChecks = mustParseSchema(describeSchema)

var describeSystem = prompt(`You write the description of a pattern in someone's personal journal: something that keeps coming back.
Write two to four plain sentences addressed to the writer as "you", in the language you are asked for.
Say what tends to set it off or what it is, how they tend to feel, and what they tend to do, using only what the
situations below say. Do not name any person, place or activity the situations do not name.
Describe, do not advise: no "should", "try to", "consider" or other advice, no diagnosis, no lists.
No quotation marks: tell what the writer wrote in your own words instead of quoting it.`, describeSchema)

// writeDescriptions writes the missing descriptions of the user's patterns, and
// rewrites those in another language than the user's app_locale and those
// the loop has outgrown (see staleUnits). A loop (see
// describeUnits) gets one description, written for its lead and given to
// each of its patterns. A pattern whose description cannot be written keeps
// the old one until the next run.
func (p *Pipeline) writeDescriptions(ctx context.Context, log *slog.Logger, userID string) error {
	locale, err := p.opts.Store.SettingValue(ctx, userID, store.SettingAppLocale)
	if err != nil {
		return err
	}
	list, err := p.opts.Store.PatternsToDescribe(ctx, userID, locale)
	if err != nil {
		return err
	}
	units, err := p.describeUnits(ctx, userID, locale, list)
	if err != nil {
		return err
	}
	loc, err := p.opts.Store.Location(ctx, userID)
	if err != nil {
		return err
	}
	stale, err := p.staleUnits(ctx, userID, loc, units)
	if err != nil {
		return err
	}
	if units = append(units, stale...); len(units) == 0 {
		return nil
	}
	names, err := p.opts.Store.Tags(ctx, userID, store.TagPerson, store.TagLocation, store.TagActivity)
	if err != nil {
		return err
	}
	lang := languageName(locale)
	for _, u := range units {
		pat := u.lead
		segments, err := p.opts.Store.PatternSegments(ctx, &pat, describeSituations)
		if err != nil {
			return err
		}
		if len(segments) == 0 {
			continue
		}
		// What the description may name: the situations' words and tags,
		// and the names of the loop's patterns.
		texts := make([]string, len(segments))
		grounding := []string{strings.ToLower(pat.Name)}
		for _, o := range u.others {
			grounding = append(grounding, strings.ToLower(o.Name))
		}
		for i, sg := range segments {
			texts[i] = sg.Text
			grounding = append(grounding, strings.ToLower(sg.Text))
			for _, t := range sg.Tags {
				grounding = append(grounding, strings.ToLower(t.Name))
			}
		}
		var feelings []string
		for _, f := range pat.Feelings {
			feelings = append(feelings, f.Name)
		}
		user := fmt.Sprintf("Language: %s (%s)\nPattern: %s (%s)\n%sFeelings it comes with: %s\nSituations:\n- %s\n",
			lang, locale, pat.Name, kindWords(pat.Kind), u.loopLine(), strings.Join(feelings, ", "), strings.Join(texts, "\n- "))
		var description string
		r := &runner{store: p.opts.Store, model: p.opts.Model, modelName: p.opts.ModelName, log: log}
		err = r.call(ctx, StepDescribe, ChatRequest{System: describeSystem, User: user, Schema: describeSchema, MaxTokens: 300},
			func(content string) error {
				var err error
				description, err = acceptDescription(content, strings.Join(grounding, "\n"), names)
				return err
			})
		if err != nil {
			return fmt.Errorf("describe pattern %s: %w", pat.ID, err)
		}
		days, err := p.loopDays(ctx, userID, loc, u.ids()...)
		if err != nil {
			return err
		}
		for _, id := range u.ids() {
			if err := p.opts.Store.SetPatternDescription(ctx, id, description, locale, len(days)); err != nil {
				return err
			}
		}
	}
	return nil
}

// describeUnit is what one description is written for: a pattern alone, or
// the lead of a loop with the other patterns of the loop.
type describeUnit struct {
	lead   store.Pattern
	others []store.Pattern
}

func (u describeUnit) ids() []string {
	ids := []string{u.lead.ID}
	for _, o := range u.others {
		ids = append(ids, o.ID)
	}
	return ids
}

// loopLine tells the model the whole loop, for a loop; it is empty for a
// pattern alone.
func (u describeUnit) loopLine() string {
	if len(u.others) == 0 {
		return ""
	}
	parts := make([]string, len(u.others))
	for i, o := range u.others {
		parts[i] = fmt.Sprintf("%s (%s)", o.Name, kindWords(o.Kind))
	}
	return fmt.Sprintf("Loop: %s (%s), then %s. They come in the same situations: describe them as one loop, "+
		"what sets it off, how it feels and what the writer tends to do then.\n", u.lead.Name, kindWords(u.lead.Kind), strings.Join(parts, ", "))
}

func kindWords(kind store.TagType) string { return strings.ReplaceAll(string(kind), "_", " ") }

// kindsWords is the plural of kindWords: "good behaviours", "activities".
func kindsWords(kind store.TagType) string {
	w := kindWords(kind)
	if strings.HasSuffix(w, "y") {
		return strings.TrimSuffix(w, "y") + "ies"
	}
	return w + "s"
}

// describeUnits groups the patterns that need a description (list) by
// loop: a loop needs one when any of its patterns does, or when its
// patterns' descriptions differ (the loop changed since it was described).
// Patterns in no loop are described alone, as listed.
func (p *Pipeline) describeUnits(ctx context.Context, userID, locale string, list []store.Pattern) ([]describeUnit, error) {
	loops, err := p.opts.Store.Loops(ctx, userID)
	if err != nil {
		return nil, err
	}
	leadOf := map[string]string{}
	for lead, ids := range loops {
		for _, id := range ids {
			leadOf[id] = lead
		}
	}
	var units []describeUnit
	need := map[string]bool{}
	for _, pat := range list {
		if lead, ok := leadOf[pat.ID]; ok {
			need[lead] = true
		} else {
			units = append(units, describeUnit{lead: pat})
		}
	}
	for _, lead := range slices.Sorted(maps.Keys(loops)) {
		members := make([]store.Pattern, len(loops[lead]))
		differ := false
		for i, id := range loops[lead] {
			m, err := p.opts.Store.FindPattern(ctx, userID, id)
			if err != nil {
				return nil, err
			}
			members[i] = *m
			differ = differ || m.Description != members[0].Description || m.DescriptionLocale != locale
		}
		if need[lead] || differ {
			units = append(units, describeUnit{lead: members[0], others: members[1:]})
		}
	}
	return units, nil
}

var sentenceEnd = regexp.MustCompile(`[.!?。！？](\s|$)`)

// acceptDescription reads a describe answer and returns its description,
// trimmed. It returns unusable output when the answer breaks its schema
// (700 characters at most, no quotation marks) or fails checkDescription.
// The description's own rules are checked first, so a refusal says which
// one was broken rather than which pattern failed.
func acceptDescription(content, grounding string, names []store.Tag) (string, error) {
	var ans struct {
		Description string `json:"description"`
	}
	if json.Unmarshal([]byte(content), &ans) == nil && ans.Description != "" {
		if err := checkDescription(strings.TrimSpace(ans.Description), grounding, names); err != nil {
			return "", err
		}
	}
	if err := decode(content, describeChecks, &ans); err != nil {
		return "", err
	}
	d := strings.TrimSpace(ans.Description)
	return d, checkDescription(d, grounding, names)
}

// quotationMarks are the double quotation marks a description may not
// hold, the same as describeSchema's pattern refuses.
const quotationMarks = `"“”„‟«»「」『』`

// adviceWords are words and phrases that give advice rather than describe.
var adviceWords = []string{"should", "shouldn't", "try to", "consider", "you could", "you might want", "make sure",
	"remember to", "don't forget", "it might help", "it may help", "it would help", "it could help"}

// checkDescription refuses a description that is empty, of more than six
// sentences, quotes, gives advice, or names one of the user's persons,
// locations or activities that the pattern's situations do not contain.
// Its length is bounded by the schema. Each refusal says which rule.
func checkDescription(d, grounding string, names []store.Tag) error {
	if d == "" {
		return unusablef("empty description")
	}
	if i := strings.IndexAny(d, quotationMarks); i >= 0 {
		r, _ := utf8.DecodeRuneInString(d[i:])
		return unusablef("description quotes (%c): it should tell in its own words", r)
	}
	if len(sentenceEnd.FindAllStringIndex(d, -1)) > 6 {
		return unusablef("description of more than six sentences")
	}
	lower := strings.ToLower(strings.ReplaceAll(d, "’", "'"))
	for _, w := range adviceWords {
		if containsWord(lower, w) {
			return unusablef("description gives advice (%q): it should describe, not advise", w)
		}
	}
	for _, t := range names {
		name := strings.ToLower(t.Name)
		if len(name) > 2 && containsWord(lower, name) && !strings.Contains(grounding, name) {
			return unusablef("description names %s %q, which its situations do not", t.Type, t.Name)
		}
	}
	return nil
}

// containsWord reports whether word stands in s as a whole word.
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(s) || !isWordRune(after)) {
			return true
		}
		i = start + 1
	}
}

func isWordRune(r rune) bool {
	return r == '_' || r == '\'' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127
}

// languageName names a language tag in English, such as "Portuguese (Brazil)".
func languageName(locale string) string {
	tag, err := language.Parse(locale)
	if err != nil {
		return locale
	}
	if name := display.English.Tags().Name(tag); name != "" {
		return name
	}
	return locale
}
