package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
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

// CaptureListItem is a capture as the list shows it, with the part of its
// text a search matched.
type CaptureListItem struct {
	CaptureItem
	Snippet *string `json:"snippet" nullable:"true" doc:"Only with q: a piece of the original or translated text around the words found, as HTML: each match in <mark>…</mark>, everything else escaped, so a page can insert it as it is. Null without q."`
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
	Type     string       `json:"type" enum:"trigger,positive_feeling,negative_feeling,mixed_feeling,good_behaviour,bad_behaviour,person,location,activity" doc:"A feeling's type is its valence: positive_feeling (pleasant), negative_feeling (unpleasant) or mixed_feeling (both at once, as bittersweet, nostalgic, ambivalent)."`
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
		OccurredAt: Timestamp(c.OccurredAt), Status: string(c.Status), CreatedAt: Timestamp(c.CreatedAt), UpdatedAt: Timestamp(c.UpdatedAt)}
}

func newCapture(c *store.Capture) Capture {
	out := Capture{CaptureItem: newCaptureItem(c), Segments: make([]Segment, len(c.Segments))}
	for i, sg := range c.Segments {
		s := Segment{ID: sg.ID, Text: sg.Text, Position: sg.Position, Tags: make([]Tag, len(sg.Tags))}
		for j, t := range sg.Tags {
			s.Tags[j] = Tag{ID: t.ID, Type: string(t.Type), Name: t.Name}
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
		OccurredAt *time.Time `json:"occurred_at,omitempty" doc:"The moment the entry is about, RFC 3339; from 1900 on, and at most a day in the future. Default: now."`
	}
}

type captureInput struct {
	Capture string `path:"capture" format:"uuid" doc:"The capture's id."`
}

type listCapturesInput struct {
	PageParams
	Q       string   `query:"q" maxLength:"200" doc:"Words to search for in the original and the translated text, up to 200 characters and 8 different words (a word said again counts once), without control characters. Every word must occur in one of its forms (\"skipping\" finds \"skipped\": the index stems English words, and every entry is indexed in its English translation too; an entry written in Danish, Dutch, Finnish, French, German, Italian, Norwegian, Portuguese, Romanian, Spanish or Swedish is also indexed by the Snowball stems of its words as written, and each word searched for is stemmed the same way in each of those languages the journal holds, so \"saltando\" finds \"salté\" and \"Kindern\" finds \"Kinder\"; the last word, from two letters on, may be the start of a stem); quotes, stars and operators are taken as plain characters. Results come best match first, each with a snippet. Empty lists every capture, newest first."`
	Feeling []string `query:"feeling,explode" maxItems:"10" doc:"Only captures in which one of these feelings was found: names from the vocabulary (as tags of type positive_feeling and negative_feeling name them, such as anxious or calm), in any case. Repeat the parameter for more, up to 10; a name outside the vocabulary answers 422."`
	Pattern []string `query:"pattern,explode" maxItems:"10" doc:"Only captures that one of these patterns rests on: pattern ids, up to 10. An id that is no pattern of yours (another user's included) matches nothing, so the list is empty, as for a pattern without captures; an id that is not a UUID answers 422."`
	Person  []string `query:"person,explode" maxItems:"10" doc:"Only captures in which one of these persons was found: names as the person tags give them, in any case, up to 10."`
	Place   []string `query:"place,explode" maxItems:"10" doc:"Only captures in which one of these places was found: names as the location tags give them, in any case, up to 10."`
	From    string   `query:"from" doc:"Only captures whose occurred_at falls on this day or later, YYYY-MM-DD in your timezone."`
	To      string   `query:"to" doc:"Only captures whose occurred_at falls on this day or earlier, YYYY-MM-DD in your timezone; on or after from."`
}

// filter is the list the input asks for.
func (in *listCapturesInput) filter() journal.Filter {
	return journal.Filter{Query: in.Q, Feelings: in.Feeling, Patterns: in.Pattern, Persons: in.Person, Places: in.Place, From: in.From, To: in.To}
}

type updateCaptureInput struct {
	Capture string `path:"capture" format:"uuid" doc:"The capture's id."`
	Body    struct {
		Text       *string    `json:"text,omitempty" minLength:"1" maxLength:"10000" doc:"The new text, 1 to 10000 characters. A changed text is analysed again."`
		OccurredAt *time.Time `json:"occurred_at,omitempty" doc:"The new moment the entry is about, RFC 3339; from 1900 on, and at most a day in the future."`
	}
}

func (s *Server) registerCaptures() {
	o := op(http.MethodGet, "/captures", "list-captures", "Captures", "List captures, newest first, or search them",
		account.ScopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity, http.StatusTooManyRequests)
	o.Description += " With q, only the captures whose text holds every word of q, best match first." +
		" feeling, pattern, person, place, from and to narrow the list, with or without q: a capture passes a filter when it matches one of its values, and the list holds those that pass every filter given." +
		" A user runs one search at a time: another one while the first runs answers 429 with Retry-After, as does a search that finds the instance's searches busy for two seconds." +
		" A search that runs longer than two seconds is stopped and answers 422 on q."
	huma.Register(s.api, o, s.listCaptures)
	// The handler checks the dates, with sentences of its own.
	for _, name := range []string{"from", "to"} {
		s.describeParam(o.Path, o.Method, name, func(p *huma.Schema) { p.Format = "date" })
	}

	o = op(http.MethodPost, "/captures", "create-capture", "Captures", "Write an entry",
		account.ScopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " The capture is queued and analysed in the background, usually within two minutes. Posting the same text again makes a new capture."
	huma.Register(s.api, o, s.createCapture)

	o = op(http.MethodGet, "/captures/{capture}", "get-capture", "Captures", "Show a capture with its segments and tags",
		account.ScopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	huma.Register(s.api, o, s.getCapture)

	o = op(http.MethodPatch, "/captures/{capture}", "update-capture", "Captures", "Change a capture's text or moment",
		account.ScopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += " Fields left out stay as they are. A changed text goes back to the queue (status queued) and is analysed again; what the last run found stays until the new run commits, and goes if it fails. A changed occurred_at alone counts patterns again. The same text again changes nothing."
	huma.Register(s.api, o, s.updateCapture)

	o = op(http.MethodDelete, "/captures/{capture}", "delete-capture", "Captures", "Delete a capture and all that was found in it",
		account.ScopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " Works on a capture being analysed too: its run's result is dropped. Patterns are counted again; one that lived only in this capture closes."
	huma.Register(s.api, o, s.deleteCapture)
}

func (s *Server) listCaptures(ctx context.Context, in *listCapturesInput) (*struct{ Body List[CaptureListItem] }, error) {
	f := in.filter()
	found, total, err := s.captures.FindCaptures(ctx, current(ctx).User.ID, f, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]CaptureListItem, len(found))
	for i := range found {
		out[i] = CaptureListItem{CaptureItem: newCaptureItem(&found[i].Capture)}
		if strings.TrimSpace(in.Q) != "" {
			out[i].Snippet = &found[i].Snippet
		}
	}
	return newFilteredList(out, total, in.PageParams, link(ctx, "/captures"), f.Values()), nil
}

func (s *Server) createCapture(ctx context.Context, in *createCaptureInput) (*struct{ Body Data[Capture] }, error) {
	c, err := s.captures.CreateCapture(ctx, current(ctx).User.ID, journal.NewCapture{Text: in.Body.Text, OccurredAt: in.Body.OccurredAt})
	if err != nil {
		return nil, err
	}
	return one(newCapture(c)), nil
}

func (s *Server) getCapture(ctx context.Context, in *captureInput) (*struct{ Body Data[Capture] }, error) {
	c, err := s.opts.Store.FindCapture(ctx, current(ctx).User.ID, in.Capture)
	if err != nil {
		return nil, err
	}
	return one(newCapture(c)), nil
}

func (s *Server) updateCapture(ctx context.Context, in *updateCaptureInput) (*struct{ Body Data[Capture] }, error) {
	userID := current(ctx).User.ID
	if _, err := s.captures.UpdateCapture(ctx, userID, in.Capture, store.CaptureUpdate{Text: in.Body.Text, OccurredAt: in.Body.OccurredAt}); err != nil {
		return nil, err
	}
	c, err := s.opts.Store.FindCapture(ctx, userID, in.Capture)
	if err != nil {
		return nil, err
	}
	return one(newCapture(c)), nil
}

func (s *Server) deleteCapture(ctx context.Context, in *captureInput) (*struct{}, error) {
	return nil, s.captures.DeleteCapture(ctx, current(ctx).User.ID, in.Capture)
}
