package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode"

	"github.com/recur-journal/recur/store"
)

// maxTries is how often one call is made before its unusable output fails
// the run: the first try and two retries.
const maxTries = 3

// runner analyses one capture.
type runner struct {
	store      *store.Store
	model      Model
	modelName  string
	log        *slog.Logger
	capture    *store.Capture
	categories map[store.TagType][]store.Category
	catValence map[string]int    // valence of the categories of the names the entry reuses
	proper     map[string]string // capitalised words of the persons and places known, by lower case (knownProperWords)
	names      *nameVectors      // the embeddings of names kept between runs; nil reads the store's
}

// call makes one model call, retrying at once while the answer is unusable
// (cut off, not JSON, or failing accept). Every call is recorded against
// the capture. Errors other than unusable output end the run at once.
func (r *runner) call(ctx context.Context, step string, req ChatRequest, accept func(content string) error) error {
	var last error
	req.Step = step
	for try := 1; try <= maxTries; try++ {
		res, err := r.model.Chat(ctx, req)
		if err != nil {
			return err
		}
		r.record(ctx, step, res)
		if res.Truncated {
			last = unusablef("answer cut off at the token limit")
		} else if err := accept(res.Content); err != nil {
			var u *unusable
			if !errors.As(err, &u) {
				return err
			}
			last = err
		} else {
			return nil
		}
		r.log.Warn("unusable model output", "step", step, "try", try, "reason", last)
	}
	return fmt.Errorf("%s: %w", step, last)
}

func (r *runner) record(ctx context.Context, step string, res ChatResult) {
	if r.capture == nil { // a call for no one capture, such as a description
		r.log.Debug("model call", "step", step, "prompt_tokens", res.PromptTokens, "output_tokens", res.OutputTokens)
		return
	}
	err := r.store.RecordModelCall(ctx, store.ModelCall{CaptureID: r.capture.ID, Step: step, Model: r.modelName,
		PromptTokens: res.PromptTokens, OutputTokens: res.OutputTokens, Duration: res.Duration})
	if err != nil && store.ErrorCode(err) != store.ENOTFOUND {
		r.log.Warn("record model call", "error", err)
	}
}

// words counts the runs of letters or digits in text.
func words(text string) int {
	return len(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// analyse runs translate, segment, extract and categorise, and returns what
// they found, ready to commit. It writes nothing but the call records.
func (r *runner) analyse(ctx context.Context) (*store.Analysis, error) {
	c := r.capture
	a := &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Original: c.Original, Translated: c.Original, Language: "en"}
	// An entry of one word at most cannot tell both what happened and how
	// it felt: there is nothing for the model to read.
	if words(c.Original) <= 1 {
		return a, nil
	}
	if code, sure := detectLanguage(c.Original); code != "en" {
		var ans translateAnswer
		err := r.call(ctx, StepTranslate, ChatRequest{System: translateSystem, User: c.Original, Schema: translateSchema,
			MaxTokens: 2*len(c.Original)/3 + 200}, func(content string) error {
			return ans.accept(content, c.Original)
		})
		if err != nil {
			return nil, err
		}
		// The model confirms the language when the local guess was unsure;
		// English stays exactly as written.
		a.Language = code
		if !sure && ans.Language != "" {
			a.Language = ans.Language
		}
		if a.Language != "en" {
			a.Translated = ans.Translation
		}
	}

	sentences := splitSentences(a.Translated)
	if len(sentences) == 0 {
		return a, nil
	}
	var spans []span
	err := r.call(ctx, StepSegment, ChatRequest{System: segmentSystem, User: numbered(a.Translated, sentences), Schema: segmentSchema,
		MaxTokens: 20*len(sentences) + 50}, func(content string) error {
		var err error
		spans, err = acceptSegments(content, sentences)
		return err
	})
	if err != nil || len(spans) == 0 {
		return a, err
	}

	tags, err := r.extract(ctx, a.Translated, spans)
	if err != nil {
		return nil, err
	}
	for i, sp := range spans {
		a.Segments = append(a.Segments, store.AnalysedSegment{Start: sp.Start, End: sp.End, Tags: tags[i]})
	}
	return a, nil
}

// extract finds the tags of each segment and gives every trigger and
// behaviour its category, asking the model to categorise the new ones.
func (r *runner) extract(ctx context.Context, text string, spans []span) ([][]store.NewTag, error) {
	feelings, err := r.store.Feelings(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]store.Feeling, len(feelings))
	for _, f := range feelings {
		byName[f.Name] = f
	}
	existing, err := r.store.Tags(ctx, r.capture.UserID, store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour,
		store.TagPerson, store.TagLocation, store.TagActivity)
	if err != nil {
		return nil, err
	}
	names := known{}
	for _, t := range existing {
		names.add(t)
	}
	// A category's name is a name the writer has too: an item given it
	// joins that category, as an item named as one of its tags does.
	r.categories = map[store.TagType][]store.Category{}
	for _, kind := range []store.TagType{store.TagTrigger, store.TagGoodBehaviour, store.TagBadBehaviour} {
		if r.categories[kind], err = r.store.Categories(ctx, r.capture.UserID, kind); err != nil {
			return nil, err
		}
		for _, c := range r.categories[kind] {
			if _, ok := names[kind][strings.ToLower(c.Name)]; !ok {
				names.add(store.Tag{Type: kind, Name: c.Name, Category: &c})
			}
		}
	}
	// Only the names nearest to the entry are offered, so the prompt does
	// not grow with the journal; any existing name the answer uses still
	// takes the user's spelling (names holds them all).
	perType, err := r.offeredNames(ctx, text, existing)
	if err != nil {
		return nil, err
	}

	var user strings.Builder
	user.WriteString("Names the writer already uses:\n")
	for _, typ := range nameTypes {
		list := "(none)"
		if len(perType[typ]) > 0 {
			list = strings.Join(perType[typ], "; ")
		}
		fmt.Fprintf(&user, "%s: %s\n", kindsWords(typ), list)
	}
	user.WriteString("\nSituations:\n")
	for i, sp := range spans {
		fmt.Fprintf(&user, "[%d] %s\n", i+1, strings.ReplaceAll(text[sp.Start:sp.End], "\n", " "))
	}

	schema := extractSchema(feelings)
	var tags [][]store.NewTag
	err = r.call(ctx, StepExtract, ChatRequest{System: extractSystem(feelings, schema), User: user.String(), Schema: schema,
		MaxTokens: 250*len(spans) + 100}, func(content string) error {
		var err error
		tags, err = acceptExtract(content, schema, len(spans), byName, names)
		return err
	})
	if err != nil {
		return nil, err
	}
	untwin(tags)

	// Triggers and behaviours the user already has keep their category,
	// the others go to the model, all in one call,
	// unless that category's situations all had the other valence.
	var reused []string
	for _, seg := range tags {
		for _, t := range seg {
			if old, ok := names[t.Type][strings.ToLower(t.Name)]; ok && store.Categorised(t.Type) && old.Category != nil {
				reused = append(reused, old.Category.ID)
			}
		}
	}
	if r.catValence, err = r.store.CategoryValences(ctx, r.capture.UserID, reused); err != nil {
		return nil, err
	}
	for _, seg := range tags {
		valence := valenceOf(seg)
		for j, t := range seg {
			if crossing, has := crosses(t, valence, names, r.catValence); has && !crossing {
				seg[j].CategoryID = names[t.Type][strings.ToLower(t.Name)].Category.ID
			}
		}
	}
	items, refs := newItems(text, spans, tags, names, r.catValence)
	if len(items) == 0 {
		return tags, nil
	}
	var people []store.NewTag
	for _, typ := range []store.TagType{store.TagPerson, store.TagLocation} {
		for _, t := range names[typ] {
			people = append(people, store.NewTag{Type: t.Type, Name: t.Name})
		}
	}
	for _, seg := range tags {
		people = append(people, seg...)
	}
	r.proper = knownProperWords(people)
	placed, err := r.categorise(ctx, items)
	if err != nil {
		return nil, err
	}
	byRef := make(map[string]item, len(items))
	for _, it := range items {
		byRef[it.ref] = it
	}
	for _, seg := range tags {
		valence := valenceOf(seg)
		for j, t := range seg {
			crossing, _ := crosses(t, valence, names, r.catValence)
			ref, ok := refs[itemKey(t, crossing)]
			if !ok {
				continue
			}
			seg[j].CategoryID, seg[j].NewCategory = placed[ref].CategoryID, placed[ref].NewCategory
			if crossing {
				seg[j].Name = r.crossingName(byRef[ref], placed[ref], names)
			}
		}
	}
	return tags, nil
}
