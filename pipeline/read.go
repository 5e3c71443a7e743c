package pipeline

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/recur-journal/recur/store"
)

// StepSegmentExtract names the call that finds a short entry's situations
// and extracts their tags at once.
const StepSegmentExtract = "segment_extract"

// readAtOnce is the number of sentences up to which an English entry is
// segmented and extracted in one call: most entries are a few sentences
// about one or two things, and the segment call's answer for them was a
// single situation, a call of its own. A longer entry is segmented first,
// so that extract reads its situations one by one.
const readAtOnce = 8

// extractIntro is the opening line of the extract prompt, which the
// segment-and-extract prompt replaces with its own.
const extractIntro = "You read the numbered situations of a personal journal entry and note, for each situation:"

// readSchema is the extract schema with each situation given as a range of
// sentences (first, last) rather than by its number.
func readSchema(feelings []store.Feeling) json.RawMessage {
	s := string(extractSchema(feelings))
	for old, repl := range map[string]string{
		`"situation":{"type":"integer","minimum":1},`: `"first":{"type":"integer","minimum":1},"last":{"type":"integer","minimum":1},`,
		`"required":["situation",`:                    `"required":["first","last",`,
	} {
		if !strings.Contains(s, old) {
			panic("readSchema: the extract schema lacks " + old)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	return json.RawMessage(s)
}

// readSystem is the extract prompt opened by the rules of situations: the
// notes on each list are the same.
func readSystem(feelings []store.Feeling, schema json.RawMessage) string {
	s := extractSystem(feelings, schema)
	if !strings.HasPrefix(s, extractIntro) {
		panic("readSystem: the extract prompt does not open with its intro")
	}
	return `You read a personal journal entry given as numbered sentences, find its situations and note what each tells.
` + situationRules + `
Give each situation's first and last sentence numbers (with no situations, answer {"situations":[]}) and note:` + strings.TrimPrefix(s, extractIntro)
}

type readAnswer struct {
	Situations []struct {
		sentenceRange
		extractedSituation
	} `json:"situations"`
}

// acceptRead reads a segment-and-extract answer over the sentences: the
// situations it names, cut from the sentences, and each one's tags (see
// extractAnswer.tags). It returns unusable output when the answer breaks
// its schema, or names sentences that do not exist, out of order or twice.
func acceptRead(content string, schema json.RawMessage, sentences []span, feelings map[string]store.Feeling, names known) ([]span, [][]store.NewTag, error) {
	checks, err := parseSchema(schema)
	if err != nil {
		return nil, nil, err
	}
	var ans readAnswer
	if err := decode(content, checks, &ans); err != nil {
		return nil, nil, err
	}
	var ranges segmentAnswer
	var ex extractAnswer
	for i, s := range ans.Situations {
		ranges.Situations = append(ranges.Situations, s.sentenceRange)
		sit := s.extractedSituation
		sit.Situation = i + 1
		ex.Situations = append(ex.Situations, sit)
	}
	spans, err := ranges.cut(sentences)
	if err != nil {
		return nil, nil, err
	}
	tags, err := ex.tags(len(spans), feelings, names)
	if err != nil {
		return nil, nil, err
	}
	return spans, tags, nil
}

// read finds the situations of a short text, cut from its sentences, and
// their tags in one call, then gives every trigger and behaviour its
// category (see settle).
func (r *runner) read(ctx context.Context, text string, sentences []span) ([]span, [][]store.NewTag, error) {
	x, err := r.prepare(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	schema := readSchema(x.feelings)
	var spans []span
	var tags [][]store.NewTag
	err = r.call(ctx, StepSegmentExtract, ChatRequest{System: readSystem(x.feelings, schema), User: x.header + "\nSentences:\n" + numbered(text, sentences),
		Schema: schema, MaxTokens: 150*len(sentences) + 150}, func(content string) error {
		var err error
		spans, tags, err = acceptRead(content, schema, sentences, x.byName, x.names)
		return err
	})
	if err != nil || len(spans) == 0 {
		return nil, nil, err
	}
	tags, err = r.settle(ctx, text, spans, tags, x.names)
	return spans, tags, err
}
