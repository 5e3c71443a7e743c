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
	tags       *store.NamesCache // the names kept between runs; nil reads the store's
	forms      *nameForms        // the names' forms kept between runs; nil works them out each time
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
//
// An entry that needs translating is translated and cut into situations by
// one call, then extracted. An English one of at most readAtOnce sentences
// is segmented and extracted by one call; a longer one is segmented, then
// extracted. Categorise follows when something new was found.
func (r *runner) analyse(ctx context.Context) (*store.Analysis, error) {
	c := r.capture
	a := &store.Analysis{CaptureID: c.ID, UserID: c.UserID, Original: c.Original, Translated: c.Original, Language: "en"}
	// An entry of one word at most cannot tell both what happened and how
	// it felt: there is nothing for the model to read.
	if words(c.Original) <= 1 {
		return a, nil
	}
	var spans []span
	var tags [][]store.NewTag
	var err error
	translated := false
	if code, sure := detectLanguage(c.Original); code != "en" {
		var ans translateAnswer
		err := r.call(ctx, StepTranslate, ChatRequest{System: translateSystem, User: c.Original, Schema: translateSchema,
			MaxTokens: 2*len(c.Original)/3 + 300}, func(content string) error {
			return ans.accept(content, c.Original)
		})
		if err != nil {
			return nil, err
		}
		// The model confirms the language when the local guess was unsure;
		// English stays exactly as written, and is read as English is.
		a.Language = code
		if !sure && ans.Language != "" {
			a.Language = ans.Language
		}
		if translated = a.Language != "en"; translated {
			a.Translated, spans = ans.Translation, ans.Situations
		}
	}
	switch sentences := splitSentences(a.Translated); {
	case translated:
		if len(spans) > 0 {
			tags, err = r.extract(ctx, a.Translated, spans)
		}
	case len(sentences) == 0:
	case len(sentences) <= readAtOnce:
		spans, tags, err = r.read(ctx, a.Translated, sentences)
	default:
		err = r.call(ctx, StepSegment, ChatRequest{System: segmentSystem, User: numbered(a.Translated, sentences), Schema: segmentSchema,
			MaxTokens: 20*len(sentences) + 50}, func(content string) error {
			var err error
			spans, err = acceptSegments(content, sentences)
			return err
		})
		if err == nil && len(spans) > 0 {
			tags, err = r.extract(ctx, a.Translated, spans)
		}
	}
	if err != nil {
		return nil, err
	}
	for i, sp := range spans {
		a.Segments = append(a.Segments, store.AnalysedSegment{Start: sp.Start, End: sp.End, Tags: tags[i]})
	}
	return a, nil
}
