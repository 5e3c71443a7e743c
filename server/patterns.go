package server

import (
	"context"
	"net/http"
	"net/url"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// FeelingRef names a feeling of the vocabulary.
type FeelingRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// PatternItem is a pattern as lists show it.
type PatternItem struct {
	ID             string       `json:"id" format:"uuid"`
	Name           string       `json:"name" doc:"The name of the category of triggers or behaviours that keeps coming back."`
	Sentiment      string       `json:"sentiment" enum:"positive,negative" doc:"Good behaviour is positive, bad behaviour negative; a trigger goes by the feelings it comes with."`
	Impact         string       `json:"impact" enum:"low,moderate,high" doc:"The share of the days you wrote on that it showed up on: under 15% low, under 35% moderate, else high."`
	Urgent         bool         `json:"urgent" doc:"Seen on three different days within the last seven."`
	Feelings       []FeelingRef `json:"feelings" doc:"Up to four feelings it comes with, most frequent first."`
	Description    string       `json:"description" doc:"A few sentences in your app_locale; empty until the model has written them. Written again when app_locale changes, and at most once a day when the loop has been seen on half again as many days since, or came back after closing."`
	Status         string       `json:"status" enum:"detected,accepted,rejected"`
	CapturesCount  int          `json:"captures_count" doc:"Number of captures it rests on."`
	LastDetectedAt Timestamp    `json:"last_detected_at" doc:"When it was last seen: the latest occurred_at among its captures."`
	ClosedAt       *Timestamp   `json:"closed_at" nullable:"true" doc:"When it stopped showing up (a week after it was last seen, or when its captures went); null while open. Accepted patterns close only when none of their captures is left."`
	CreatedAt      Timestamp    `json:"created_at"`
	Related        []RelatedRef `json:"related" doc:"The patterns that rest on mostly the same situations, most shared days first: with this one they make a loop, such as a trigger and the behaviours that follow it. Two patterns are related when they show up in the same situations on at least three different days and those shared situations are at least 60% of the situations of the one with fewer. Empty when it is part of no loop; a rejected pattern is never related."`
}

// RelatedRef names a pattern related to another and how much they share.
type RelatedRef struct {
	ID         string `json:"id" format:"uuid"`
	Name       string `json:"name" doc:"The related pattern's name."`
	Kind       string `json:"kind" enum:"trigger,good_behaviour,bad_behaviour" doc:"The kind of the related pattern's category."`
	SharedDays int    `json:"shared_days" doc:"Number of different days with a situation both patterns show up in."`
}

// Pattern is a pattern with the captures it rests on, its correlations and flows.
type Pattern struct {
	PatternItem
	Captures     []CaptureRef  `json:"captures" doc:"The captures it rests on, newest first."`
	Correlations []Correlation `json:"correlations"`
	Flows        []Flow        `json:"flows"`
}

// CaptureRef is a capture as patterns and the timeline list it.
type CaptureRef struct {
	ID         string    `json:"id" format:"uuid"`
	Status     string    `json:"status" enum:"queued,processing,processed,failed"`
	OccurredAt Timestamp `json:"occurred_at"`
}

// Correlation is a person, location or activity a pattern occurs with more often.
type Correlation struct {
	ID     string `json:"id" format:"uuid"`
	Tag    TagRef `json:"tag"`
	Impact string `json:"impact" enum:"low,moderate,high" doc:"How much more often the pattern shows on days with the tag than on days without: under 1.5 times low, under 2.5 times moderate, else high."`
	Amount int    `json:"amount" doc:"Number of days the tag and the pattern were seen together."`
	Status string `json:"status" enum:"detected,accepted,rejected"`
}

// TagRef names a tag.
type TagRef struct {
	ID   string `json:"id" format:"uuid"`
	Type string `json:"type" enum:"person,location,activity"`
	Name string `json:"name"`
}

// Flow is one situation of a pattern told in order: each part is a tag of that segment.
type Flow struct {
	ID        string `json:"id" format:"uuid"`
	SegmentID string `json:"segment_id" format:"uuid"`
	Trigger   string `json:"trigger"`
	Feeling   string `json:"feeling"`
	Behaviour string `json:"behaviour"`
}

func newPatternItem(p *store.Pattern, loop store.PatternLoop) PatternItem {
	out := PatternItem{ID: p.ID, Name: p.Name, Sentiment: p.Sentiment, Impact: p.Impact, Urgent: p.Urgent,
		Feelings: make([]FeelingRef, len(p.Feelings)), Description: p.Description, Status: string(p.Status), CapturesCount: p.CapturesCount,
		LastDetectedAt: Timestamp(p.LastDetectedAt), ClosedAt: stamp(p.ClosedAt), CreatedAt: Timestamp(p.CreatedAt),
		Related: make([]RelatedRef, len(loop.Related))}
	for i, f := range p.Feelings {
		out.Feelings[i] = FeelingRef{ID: f.ID, Name: f.Name}
	}
	for i, r := range loop.Related {
		out.Related[i] = RelatedRef{ID: r.ID, Name: r.Name, Kind: string(r.Kind), SharedDays: r.SharedDays}
	}
	return out
}

func newCorrelation(c *store.Correlation) Correlation {
	return Correlation{ID: c.ID, Tag: TagRef{ID: c.Tag.ID, Type: string(c.Tag.Type), Name: c.Tag.Name}, Impact: c.Impact, Amount: c.Amount, Status: string(c.Status)}
}

type patternInput struct {
	ID string `path:"id" format:"uuid" doc:"The pattern's id."`
}

type reviewBody struct {
	Status string `json:"status" enum:"accepted,rejected,detected" doc:"Your decision. detected restores a rejected pattern and is refused (422) for an accepted one."`
}

type reviewPatternInput struct {
	ID   string `path:"id" format:"uuid" doc:"The pattern's id."`
	Body reviewBody
}

type reviewCorrelationInput struct {
	Correlation string `path:"correlation" format:"uuid" doc:"The correlation's id."`
	Body        reviewBody
}

type listPatternsInput struct {
	PageParams
	State string `query:"state" enum:"open,closed" doc:"Only open patterns (closed_at null) or only closed ones. Empty: both, open ones first."`
}

func (s *Server) registerPatterns() {
	o := op(http.MethodGet, "/patterns", "list-patterns", "Patterns", "List patterns",
		account.ScopePatternsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description += " Lists open patterns first, urgent ones first and then the most recently seen, and then closed ones (closed_at set), the most recently closed first. Rejected patterns are never listed; they stay readable by id. The state parameter narrows the list to open or closed ones."
	huma.Register(s.api, o, s.listPatterns)

	o = op(http.MethodGet, "/patterns/{id}", "get-pattern", "Patterns", "Show a pattern with its captures, correlations and flows",
		account.ScopePatternsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.Description += " A rejected pattern is still readable; its correlations, flows and related patterns are gone."
	huma.Register(s.api, o, s.getPattern)

	o = op(http.MethodPatch, "/patterns/{id}", "review-pattern", "Patterns", "Accept or reject a pattern",
		account.ScopePatternsReview, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += " Only on your own decision. Accepting exempts it from closing when it goes quiet or its counts fall; it closes only when every capture it rested on is deleted, keeping the sentiment of its kind. Rejecting closes it, drops its flows and correlations, and leaves its topic alone from then on; it is never listed again. Either decision may be changed later: accepting a rejected pattern brings it back, rejecting an accepted one drops it. The spec leaves moves from rejected open; Recur also takes detected, for a rejected pattern only: it is restored as if never reviewed, its topic is read by later runs again, and its flows and correlations are counted anew at once (correlations rejected before stay rejected). detected for an accepted pattern is 422 under status; for a detected one it changes nothing."
	huma.Register(s.api, o, s.reviewPattern)

	o = op(http.MethodPatch, "/correlations/{correlation}", "review-correlation", "Patterns", "Accept or reject a correlation",
		account.ScopePatternsReview, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += " An accepted correlation stays even when it drops out of the top three; a rejected one is hidden and never comes back for that pattern."
	huma.Register(s.api, o, s.reviewCorrelation)
}

func (s *Server) listPatterns(ctx context.Context, in *listPatternsInput) (*struct{ Body List[PatternItem] }, error) {
	f, filter := store.PatternFilter{Page: in.store()}, url.Values{}
	if in.State != "" {
		state := store.PatternState(in.State)
		f.State = &state
		filter.Set("state", in.State)
	}
	list, total, err := s.opts.Store.FindPatterns(ctx, current(ctx).User.ID, f)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	loops, err := s.opts.Store.PatternLoops(ctx, current(ctx).User.ID, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]PatternItem, len(list))
	for i := range list {
		out[i] = newPatternItem(&list[i], loops[list[i].ID])
	}
	return newFilteredList(out, total, in.PageParams, link(ctx, "/patterns"), filter), nil
}

// patternOut builds the single read of a pattern.
func (s *Server) patternOut(ctx context.Context, p *store.Pattern) (*struct{ Body Data[Pattern] }, error) {
	d, err := s.opts.Store.PatternDetail(ctx, p)
	if err != nil {
		return nil, err
	}
	loops, err := s.opts.Store.PatternLoops(ctx, p.UserID, p.ID)
	if err != nil {
		return nil, err
	}
	out := Pattern{PatternItem: newPatternItem(p, loops[p.ID]), Captures: make([]CaptureRef, len(d.Captures)),
		Correlations: make([]Correlation, len(d.Correlations)), Flows: make([]Flow, len(d.Flows))}
	for i, c := range d.Captures {
		out.Captures[i] = CaptureRef{ID: c.ID, Status: string(c.Status), OccurredAt: Timestamp(c.OccurredAt)}
	}
	for i := range d.Correlations {
		out.Correlations[i] = newCorrelation(&d.Correlations[i])
	}
	for i, f := range d.Flows {
		out.Flows[i] = Flow{ID: f.ID, SegmentID: f.SegmentID, Trigger: f.Trigger, Feeling: f.Feeling, Behaviour: f.Behaviour}
	}
	return one(out), nil
}

func (s *Server) getPattern(ctx context.Context, in *patternInput) (*struct{ Body Data[Pattern] }, error) {
	p, err := s.opts.Store.FindPattern(ctx, current(ctx).User.ID, in.ID)
	if err != nil {
		return nil, err
	}
	return s.patternOut(ctx, p)
}

func (s *Server) reviewPattern(ctx context.Context, in *reviewPatternInput) (*struct{ Body Data[Pattern] }, error) {
	userID := current(ctx).User.ID
	p, err := s.opts.Store.ReviewPattern(ctx, userID, in.ID, store.PatternStatus(in.Body.Status))
	if err != nil {
		return nil, err
	}
	if s.opts.Analyser != nil && p.Status != store.PatternRejected {
		// Accepting may reopen it and, from rejected, bring back its links;
		// a restored pattern has its links counted anew.
		if err := s.opts.Analyser.Redetect(ctx, userID); err != nil {
			logger(ctx).Error("detect after review", "error", err)
		} else if p, err = s.opts.Store.FindPattern(ctx, userID, in.ID); err != nil {
			return nil, err
		}
	}
	return s.patternOut(ctx, p)
}

func (s *Server) reviewCorrelation(ctx context.Context, in *reviewCorrelationInput) (*struct{ Body Data[Correlation] }, error) {
	c, err := s.opts.Store.ReviewCorrelation(ctx, current(ctx).User.ID, in.Correlation, store.PatternStatus(in.Body.Status))
	if err != nil {
		return nil, err
	}
	return one(newCorrelation(c)), nil
}
