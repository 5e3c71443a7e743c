package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// Scope names of the capture routes.
const (
	scopeCapturesRead  = "captures:read"
	scopeCapturesWrite = "captures:write"
)

// Analyser is the analysis pipeline as the API sees it.
type Analyser interface {
	// Notify says a capture was queued.
	Notify()
	// Redetect re-counts the user's patterns after a capture was deleted
	// or the timezone changed.
	Redetect(ctx context.Context, userID string) error
	// Redescribe has pattern descriptions rewritten, as after app_locale changed.
	Redescribe(userID string)
}

// CaptureItem is a journal entry as lists show it.
type CaptureItem struct {
	ID         string    `json:"id" format:"uuid"`
	Original   string    `json:"original" doc:"The text exactly as posted."`
	Translated string    `json:"translated" doc:"The text in English: the original itself when it is English. Empty until processed, and for a failed capture."`
	Language   string    `json:"language" doc:"ISO 639-1 code of the detected language. Empty until processed."`
	Origin     string    `json:"origin" enum:"text,import" doc:"Where the capture came from: text, posted to POST /captures; import, brought in by POST /captures/import or recur import."`
	OccurredAt Timestamp `json:"occurred_at" doc:"The moment the entry is about."`
	Status     string    `json:"status" enum:"queued,processing,processed,failed" doc:"queued: waiting for analysis; processing: being analysed; processed: segments and tags exist; failed: the model kept answering unusably, only the text is kept (post it again to retry)."`
	CreatedAt  Timestamp `json:"created_at"`
	UpdatedAt  Timestamp `json:"updated_at"`
}

// Capture is a journal entry and, once processed, what was found in it.
type Capture struct {
	CaptureItem
	Segments []Segment `json:"segments" doc:"The situations found, in order; empty until processed and for a failed capture."`
}

// Segment is one situation of a capture: a verbatim slice of its translated text.
type Segment struct {
	ID       string `json:"id" format:"uuid"`
	Text     string `json:"text" doc:"The slice of the translated text, exactly as it stands there."`
	Position int    `json:"position" doc:"Order within the capture, from 0."`
	Tags     []Tag  `json:"tags"`
}

// Tag is a trigger, feeling, behaviour, person, location or activity found in a segment.
type Tag struct {
	ID       string       `json:"id" format:"uuid"`
	Type     string       `json:"type" enum:"trigger,positive_feeling,negative_feeling,good_behaviour,bad_behaviour,person,location,activity"`
	Name     string       `json:"name"`
	Category *TagCategory `json:"category" doc:"Null for persons, locations, activities and feelings. The category of a trigger or behaviour, grouping those of the same meaning."`
}

// TagCategory names a tag's category; a tag without one has null.
type TagCategory struct {
	_    struct{} `nullable:"true"`
	ID   string   `json:"id" format:"uuid"`
	Name string   `json:"name"`
}

func newCaptureItem(c *store.Capture) CaptureItem {
	return CaptureItem{ID: c.ID, Original: c.Original, Translated: c.Translated, Language: c.Language, Origin: c.Origin,
		OccurredAt: Timestamp(c.OccurredAt), Status: c.Status, CreatedAt: Timestamp(c.CreatedAt), UpdatedAt: Timestamp(c.UpdatedAt)}
}

func newCapture(c *store.Capture) Capture {
	out := Capture{CaptureItem: newCaptureItem(c), Segments: make([]Segment, len(c.Segments))}
	for i, sg := range c.Segments {
		s := Segment{ID: sg.ID, Text: sg.Text, Position: sg.Position, Tags: make([]Tag, len(sg.Tags))}
		for j, t := range sg.Tags {
			s.Tags[j] = Tag{ID: t.ID, Type: t.Type, Name: t.Name}
			if t.Category != nil {
				s.Tags[j].Category = &TagCategory{ID: t.Category.ID, Name: t.Category.Name}
			}
		}
		out.Segments[i] = s
	}
	return out
}

type createCaptureInput struct {
	Body struct {
		Text       string     `json:"text" minLength:"1" maxLength:"10000" doc:"The entry, 1 to 10000 characters."`
		OccurredAt *time.Time `json:"occurred_at,omitempty" doc:"The moment the entry is about, RFC 3339; at most a day in the future. Default: now."`
	}
}

type captureInput struct {
	Capture string `path:"capture" format:"uuid" doc:"The capture's id."`
}

type listCapturesInput struct {
	PageParams
}

func (s *Server) registerCaptures() {
	huma.Register(s.api, op(http.MethodGet, "/captures", "list-captures", "Captures", "List captures, newest first",
		scopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.listCaptures)

	o := op(http.MethodPost, "/captures", "create-capture", "Captures", "Write an entry",
		scopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " The capture is queued and analysed in the background, usually within two minutes. Posting the same text again makes a new capture."
	huma.Register(s.api, o, s.createCapture)

	o = op(http.MethodGet, "/captures/{capture}", "get-capture", "Captures", "Show a capture with its segments and tags",
		scopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	huma.Register(s.api, o, s.getCapture)

	o = op(http.MethodDelete, "/captures/{capture}", "delete-capture", "Captures", "Delete a capture and all that was found in it",
		scopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " Works on a capture being analysed too: its run's result is dropped. Patterns are counted again; one that lived only in this capture closes."
	huma.Register(s.api, o, s.deleteCapture)
}

func (s *Server) listCaptures(ctx context.Context, in *listCapturesInput) (*struct{ Body List[CaptureItem] }, error) {
	list, total, err := s.opts.Store.ListCaptures(ctx, current(ctx).User.ID, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]CaptureItem, len(list))
	for i := range list {
		out[i] = newCaptureItem(&list[i])
	}
	return newList(out, total, in.PageParams, s.url("/captures")), nil
}

func (s *Server) createCapture(ctx context.Context, in *createCaptureInput) (*struct{ Body Data[Capture] }, error) {
	c := store.Capture{UserID: current(ctx).User.ID, Original: in.Body.Text}
	if in.Body.OccurredAt != nil {
		c.OccurredAt = *in.Body.OccurredAt
	}
	if err := s.opts.Store.CreateCapture(ctx, &c); err != nil {
		return nil, err
	}
	if s.opts.Analyser != nil {
		s.opts.Analyser.Notify()
	}
	return one(newCapture(&c)), nil
}

func (s *Server) getCapture(ctx context.Context, in *captureInput) (*struct{ Body Data[Capture] }, error) {
	c, err := s.opts.Store.FindCapture(ctx, current(ctx).User.ID, in.Capture)
	if err != nil {
		return nil, err
	}
	return one(newCapture(c)), nil
}

func (s *Server) deleteCapture(ctx context.Context, in *captureInput) (*struct{}, error) {
	userID := current(ctx).User.ID
	if err := s.opts.Store.DeleteCapture(ctx, userID, in.Capture); err != nil {
		return nil, err
	}
	if s.opts.Analyser != nil {
		if err := s.opts.Analyser.Redetect(ctx, userID); err != nil {
			// The capture is gone either way; the nightly run will count again.
			logger(ctx).Error("detect after delete", "error", err)
		}
	}
	return nil, nil
}
