// Package journal holds the journal's rules above the store: what writing,
// changing, deleting and searching an entry sets off, whichever way it
// comes in (the API or the pages).
package journal

import (
	"context"
	"html"
	"log/slog"
	"strings"
	"time"

	"github.com/recur-journal/recur/store"
)

// Analyser is the analysis pipeline as the journal uses it.
type Analyser interface {
	// Notify says a capture was queued.
	Notify()
	// Redetect re-counts the user's patterns after their captures changed
	// other than by a run.
	Redetect(ctx context.Context, userID string) error
}

// Captures writes, changes, deletes and searches entries. Analyser and
// Events may be nil: then no one is told.
type Captures struct {
	Store    *store.Store
	Analyser Analyser
	Events   *Events
	// Log gives the logger for a request's context; nil means slog.Default.
	Log func(ctx context.Context) *slog.Logger
}

// NewCapture is an entry as written: OccurredAt nil means now.
type NewCapture struct {
	Text       string
	OccurredAt *time.Time
}

// CreateCapture stores the user's entry and queues it for analysis. It
// returns EINVALID naming "text" or "occurred_at".
func (j *Captures) CreateCapture(ctx context.Context, userID string, in NewCapture) (*store.Capture, error) {
	c := &store.Capture{UserID: userID, Original: in.Text}
	if in.OccurredAt != nil {
		c.OccurredAt = *in.OccurredAt
		// The store takes a zero moment for now: a moment given is judged
		// as given, so that 0001-01-01 is refused, not moved to today.
		if err := c.Validate(j.Store.Now()); err != nil {
			return nil, err
		}
	}
	if err := j.Store.CreateCapture(ctx, c); err != nil {
		return nil, err
	}
	j.queued(c)
	return c, nil
}

// UpdateCapture changes the user's entry. A changed text is analysed
// again (what the last run found stays until the new run commits, and goes
// if it fails); a changed time alone has patterns counted again. It returns
// ENOTFOUND for an entry that is not the user's, and EINVALID naming
// "text" or "occurred_at".
func (j *Captures) UpdateCapture(ctx context.Context, userID, id string, u store.CaptureUpdate) (*store.Capture, error) {
	c, changed, err := j.Store.UpdateCapture(ctx, userID, id, u)
	if err != nil {
		return nil, err
	}
	switch {
	case changed.Text:
		j.queued(c) // the run re-counts patterns when it commits
	case changed.OccurredAt:
		j.redetect(ctx, userID, "detect after a capture moved")
	}
	return c, nil
}

// DeleteCapture removes the user's entry and all that was found in it, and
// has patterns counted again. It returns ENOTFOUND for an entry that is not
// the user's.
func (j *Captures) DeleteCapture(ctx context.Context, userID, id string) error {
	if err := j.Store.DeleteCapture(ctx, userID, id); err != nil {
		return err
	}
	j.redetect(ctx, userID, "detect after delete")
	return nil
}

// CaptureMatch is an entry a search found, with a snippet of the text
// around the words found: HTML, each match in <mark>, the rest escaped.
type CaptureMatch struct {
	store.Capture
	Snippet string
}

// SearchCaptures returns a page of the user's entries whose text (as
// written or translated) holds every word of query, best matches first,
// and how many match in all. It returns EINVALID naming "q" for a query
// that is empty or too long (store.SearchMaxLength).
func (j *Captures) SearchCaptures(ctx context.Context, userID, query string, p store.Page) ([]CaptureMatch, int, error) {
	found, total, err := j.Store.SearchCaptures(ctx, userID, query, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]CaptureMatch, len(found))
	for i, m := range found {
		out[i] = CaptureMatch{Capture: m.Capture, Snippet: HighlightSnippet(m.Snippet)}
	}
	return out, total, nil
}

// HighlightSnippet turns a snippet with store.SnippetOpen and
// store.SnippetClose marks into HTML safe to insert into a page: the text
// escaped, each match in <mark>…</mark>. Marks that do not pair up (the
// text itself held one) are dropped, so the tags always balance.
func HighlightSnippet(s string) string {
	var b strings.Builder
	open := false
	for s != "" {
		i := strings.IndexAny(s, store.SnippetOpen+store.SnippetClose)
		if i < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		b.WriteString(html.EscapeString(s[:i]))
		switch mark := s[i : i+1]; {
		case mark == store.SnippetOpen && !open:
			b.WriteString("<mark>")
			open = true
		case mark == store.SnippetClose && open:
			b.WriteString("</mark>")
			open = false
		}
		s = s[i+1:]
	}
	if open {
		b.WriteString("</mark>")
	}
	return b.String()
}

// queued tells the pipeline and the user's pages of a capture in the queue.
func (j *Captures) queued(c *store.Capture) {
	// Told before a worker is woken, so that queued mostly comes before
	// processing; a worker that polls may still claim it first, which is
	// why each event carries updated_at.
	if j.Events != nil {
		j.Events.CaptureChanged(c)
	}
	if j.Analyser != nil {
		j.Analyser.Notify()
	}
}

func (j *Captures) redetect(ctx context.Context, userID, what string) {
	if j.Analyser == nil {
		return
	}
	if err := j.Analyser.Redetect(ctx, userID); err != nil {
		// The change stands either way; the nightly run will count again.
		j.logger(ctx).Error(what, "user_id", userID, "error", err)
	}
}

func (j *Captures) logger(ctx context.Context) *slog.Logger {
	if j.Log != nil {
		return j.Log(ctx)
	}
	return slog.Default()
}
