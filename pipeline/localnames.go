package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"golang.org/x/text/language"

	"github.com/recur-journal/recur/store"
)

// StepName names the call that names patterns in the reader's language.
const StepName = "name"

// nameBatch bounds how many names one call translates.
const nameBatch = 20

var nameSchema = json.RawMessage(`{"type":"object","properties":{"names":{"type":"array",` +
	`"items":{"type":"string","minLength":1,"maxLength":120},` +
	`"description":"each topic's name in the language asked for, in the order given, as many as given"}},` +
	`"required":["names"],"additionalProperties":false}`)

var nameChecks = mustParseSchema(nameSchema)

var nameSystem = prompt(`You name the topics of someone's personal journal in their own language.
Each topic is a short English phrase that Recur found in the journal: what sets feelings off, or what the writer does.
Give each one as a short, natural phrase in the language you are asked for, with the same meaning, in lower case
unless the language or a name asks for capitals. Keep names of people and places as they are.
Answer with one name for each topic, in the order given.`, nameSchema)

// writeCategoryNames names, in the user's app_locale, the categories of
// their patterns that have no name in it yet: the pages show a pattern by
// that name, while the analysis goes on in English. English needs none.
func (p *Pipeline) writeCategoryNames(ctx context.Context, log *slog.Logger, userID string) error {
	locale, err := p.opts.Store.SettingValue(ctx, userID, store.SettingAppLocale)
	if err != nil {
		return err
	}
	if tag, err := language.Parse(locale); err != nil {
		return nil
	} else if base, _ := tag.Base(); base.String() == "en" {
		return nil
	}
	list, err := p.opts.Store.CategoriesToName(ctx, userID, locale)
	if err != nil {
		return err
	}
	lang := languageName(locale)
	r := &runner{store: p.opts.Store, model: p.opts.Model, modelName: p.opts.ModelName, log: log}
	for start := 0; start < len(list); start += nameBatch {
		batch := list[start:min(start+nameBatch, len(list))]
		var b strings.Builder
		fmt.Fprintf(&b, "Language: %s (%s)\nTopics:\n", lang, locale)
		for i, c := range batch {
			fmt.Fprintf(&b, "%d. %s (%s)\n", i+1, c.Name, kindWords(c.Kind))
		}
		var names []string
		err := r.call(ctx, StepName, ChatRequest{System: nameSystem, User: b.String(), Schema: nameSchema, MaxTokens: 60 + 40*len(batch)},
			func(content string) error {
				var err error
				names, err = acceptNames(content, len(batch))
				return err
			})
		if err != nil {
			return fmt.Errorf("name patterns: %w", err)
		}
		for i, c := range batch {
			if err := p.opts.Store.SetCategoryName(ctx, c.ID, locale, c.Name, names[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// acceptNames reads a name answer: exactly n names, each one line without
// quotation marks, trimmed. Anything else is unusable.
func acceptNames(content string, n int) ([]string, error) {
	var ans struct {
		Names []string `json:"names"`
	}
	if err := decode(content, nameChecks, &ans); err != nil {
		return nil, err
	}
	if len(ans.Names) != n {
		return nil, unusablef("%d names for %d topics", len(ans.Names), n)
	}
	for i, name := range ans.Names {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, "\n\r"+quotationMarks) {
			return nil, unusablef("name %d is empty, quoted or of several lines: %q", i+1, name)
		}
		ans.Names[i] = name
	}
	return ans.Names, nil
}
