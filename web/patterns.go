package web

import (
	"cmp"
	"context"
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// patternView is a pattern as a card shows it.
type patternView struct {
	store.Pattern
	State store.PatternState
	Days  int // days it showed up on
	Strip template.HTML
	// Then are the other patterns of the loop this one leads, shown on its
	// card instead of cards of their own; Loop, on a pattern's own page,
	// the patterns it makes a loop with.
	Then []store.RelatedPattern
	Loop []store.RelatedPattern
}

type patternsData struct {
	Open, Closed []patternView
	// Rejected are the patterns set aside, listed apart so that one can be
	// restored.
	Rejected []store.Pattern
	// Lock tells how far the journal is from its first patterns, shown
	// when there are none.
	Lock *journal.FeatureLock
}

// patternEntries is how many entries, the newest, a pattern's page lists.
const patternEntries = 50

// stripDays is how many days a card's strip shows, ending today.
const stripDays = 56

// patternDays returns the local dates the pattern showed up on, and its captures.
func (a *App) patternDays(r *http.Request, p *store.Pattern) (map[string]bool, *store.PatternDetail, error) {
	d, err := a.opts.Store.PatternDetail(r.Context(), p)
	if err != nil {
		return nil, nil, err
	}
	loc := viewerOf(r).Loc
	days := map[string]bool{}
	for _, c := range d.Captures {
		if c.Status != store.StatusFailed {
			days[c.OccurredAt.In(loc).Format(time.DateOnly)] = true
		}
	}
	return days, d, nil
}

func (a *App) view(r *http.Request, p *store.Pattern) (patternView, *store.PatternDetail, error) {
	days, d, err := a.patternDays(r, p)
	if err != nil {
		return patternView{}, nil, err
	}
	pv := patternView{Pattern: *p, State: p.State(), Days: len(days)}
	pv.Strip = dayStrip(viewerOf(r).Lang, days, a.opts.Store.Now().In(viewerOf(r).Loc), stripDays)
	return pv, d, nil
}

// listPatterns shows the cards: open ones (urgent first, as the store
// orders them), then closed ones in their own section. The strips come from
// one timeline read of their weeks, not from each pattern's whole history.
func (a *App) listPatterns(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	ctx := r.Context()
	list, _, err := a.opts.Store.ListPatterns(ctx, v.User.ID, store.Page{Page: 1, Limit: 200})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	now := a.opts.Store.Now().In(v.Loc)
	first := now.AddDate(0, 0, -stripDays+1)
	tl, err := a.opts.Store.Timeline(ctx, v.User.ID, store.StartOfDay(first.Year(), first.Month(), first.Day(), v.Loc), now.Add(time.Minute))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	seen := map[string]map[string]bool{} // pattern id -> local dates
	for _, c := range tl {
		for _, p := range c.Patterns {
			if seen[p.ID] == nil {
				seen[p.ID] = map[string]bool{}
			}
			seen[p.ID][c.OccurredAt.In(v.Loc).Format(time.DateOnly)] = true
		}
	}
	then, err := a.loopCards(ctx, v.User.ID, list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var d patternsData
	name := a.patternNames(r)
	for i := range list {
		p := &list[i]
		t, ok := then[p.ID]
		if !ok {
			continue // on the card of its loop's lead
		}
		with, _, err := a.opts.Store.PatternDays(ctx, v.User.ID, p.ID, v.Loc)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		pv := patternView{Pattern: *p, State: p.State(), Days: with, Strip: dayStrip(v.Lang, seen[p.ID], now, stripDays), Then: t}
		if len(t) > 0 {
			// A loop's card tells the whole loop: the days of any of its
			// patterns, in its count and its strip.
			ids := []string{p.ID}
			for _, next := range t {
				ids = append(ids, next.ID)
			}
			loop, err := a.opts.Store.LoopDays(ctx, v.User.ID, v.Loc, ids...)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			pv.Days, pv.Strip = len(loop), dayStrip(v.Lang, loop, now, stripDays)
		}
		pv.Name = name(p.ID, p.Name)
		for j := range pv.Then {
			pv.Then[j].Name = name(pv.Then[j].ID, pv.Then[j].Name)
		}
		if pv.State == store.PatternClosed {
			d.Closed = append(d.Closed, pv)
		} else {
			d.Open = append(d.Open, pv)
		}
	}
	if d.Rejected, err = a.opts.Store.RejectedPatterns(ctx, v.User.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	for i := range d.Rejected {
		d.Rejected[i].Name = name(d.Rejected[i].ID, d.Rejected[i].Name)
	}
	if len(list) == 0 {
		if d.Lock, err = journal.FindFeatureLock(ctx, a.opts.Store, v.User.ID, journal.LockPatterns, ""); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	a.render(w, r, http.StatusOK, "patterns", page{Title: v.Lang.T("Patterns"), Nav: "patterns", Data: d})
}

// loopCards decides which listed patterns get a card: a loop is one card,
// its lead's, naming the loop's other patterns in list order. It returns,
// for each pattern that gets a card, the others its card names; a pattern
// whose lead is not listed gets a card of its own.
func (a *App) loopCards(ctx context.Context, userID string, list []store.Pattern) (map[string][]store.RelatedPattern, error) {
	ids := make([]string, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	loops, err := a.opts.Store.PatternLoops(ctx, userID, ids...)
	if err != nil {
		return nil, err
	}
	cards := make(map[string][]store.RelatedPattern, len(list))
	for _, p := range list {
		cards[p.ID] = nil
	}
	for _, p := range list {
		lead := loops[p.ID].LeadID
		if _, listed := cards[lead]; listed && lead != p.ID {
			delete(cards, p.ID)
			cards[lead] = append(cards[lead], store.RelatedPattern{ID: p.ID, Name: p.Name, Kind: p.Kind})
		}
	}
	return cards, nil
}

// correlationView is a correlation with the sample behind it: the pattern
// showed up on Together of the TagDays days the tag was seen on.
type correlationView struct {
	store.Correlation
	Together, TagDays int
}

// Kind names the tag's type as the page says it, a catalogue key.
func (c correlationView) Kind() string {
	switch c.Tag.Type {
	case store.TagLocation:
		return i18n.Key("place")
	case store.TagActivity:
		return i18n.Key("activity")
	}
	return i18n.Key("person")
}

// Strength says the correlation's impact in words, a catalogue key.
func (c correlationView) Strength() string {
	switch c.Impact {
	case "high":
		return i18n.Key("strong link")
	case "moderate":
		return i18n.Key("moderate link")
	}
	return i18n.Key("weak link")
}

// impactRank orders impacts strongest first.
var impactRank = map[string]int{"high": 0, "moderate": 1, "low": 2}

// Sample says the sample in words: "on 4 of your 5 days with Lea", "at the
// park" for a place, "of running" for an activity.
// The count the plural form follows, the days of the tag, comes first.
func (c correlationView) Sample(loc *i18n.Locale) string {
	switch c.Tag.Type {
	case store.TagLocation:
		return loc.T("on %[2]d of your %[1]d days at %[3]s", c.TagDays, c.Together, c.Tag.Name)
	case store.TagActivity:
		return loc.T("on %[2]d of your %[1]d days of %[3]s", c.TagDays, c.Together, c.Tag.Name)
	}
	return loc.T("on %[2]d of your %[1]d days with %[3]s", c.TagDays, c.Together, c.Tag.Name)
}

// flowNode and flowLink are the loop drawing's parts.
type patternData struct {
	Pattern      patternView
	Correlations []correlationView
	Flows        template.HTML
	HasFlows     bool
	Entries      []entryView
	Calendar     template.HTML
	// The feature locks say what it takes when there are no flows or
	// no correlations yet.
	FlowsLock, CorrelationsLock *journal.FeatureLock
}

func (a *App) showPattern(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	p, err := a.opts.Store.FindPattern(r.Context(), v.User.ID, r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pv, detail, err := a.view(r, p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	loops, err := a.opts.Store.PatternLoops(r.Context(), v.User.ID, p.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	name := a.patternNames(r)
	pv.Name = name(p.ID, p.Name)
	pv.Loop = loops[p.ID].Related
	for i := range pv.Loop {
		pv.Loop[i].Name = name(pv.Loop[i].ID, pv.Loop[i].Name)
	}
	d := patternData{Pattern: pv, HasFlows: len(detail.Flows) > 0}
	if d.HasFlows {
		d.Flows = flowsSVG(v.Lang, a.flowsNamed(r, detail.Flows))
	} else if d.FlowsLock, err = journal.FindFeatureLock(r.Context(), a.opts.Store, v.User.ID, journal.LockFlows, p.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	if len(detail.Correlations) == 0 {
		if d.CorrelationsLock, err = journal.FindFeatureLock(r.Context(), a.opts.Store, v.User.ID, journal.LockCorrelations, p.ID); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	for _, c := range detail.Correlations {
		n, err := a.opts.Store.TagDays(r.Context(), v.User.ID, c.Tag.ID, v.Loc)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		d.Correlations = append(d.Correlations, correlationView{Correlation: c, Together: c.Amount, TagDays: max(n, c.Amount)})
	}
	// Strongest first, whatever the type, so the list reads from what
	// matters most.
	slices.SortStableFunc(d.Correlations, func(a, b correlationView) int {
		if c := cmp.Compare(impactRank[a.Impact], impactRank[b.Impact]); c != 0 {
			return c
		}
		return cmp.Compare(b.Together, a.Together)
	})
	days := map[string]bool{}
	for i, c := range detail.Captures {
		if i == patternEntries {
			break
		}
		full, err := a.opts.Store.FindCapture(r.Context(), v.User.ID, c.ID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		e := newEntryView(full, v.Loc, v.Lang)
		days[e.Date] = true
		d.Entries = append(d.Entries, e)
	}
	d.Calendar = dayStrip(v.Lang, days, a.opts.Store.Now().In(v.Loc), 7*26)
	a.render(w, r, http.StatusOK, "pattern", page{Title: pv.Name, Nav: "patterns", Data: d})
}

// back returns where a review form asks to go back to: the list or the
// pattern's own page, never anywhere else.
func back(r *http.Request, id string) string {
	if r.PostFormValue("back") == "pattern" {
		return "/patterns/" + id
	}
	return "/patterns"
}

func reviewStatus(r *http.Request) (store.PatternStatus, error) {
	switch s := store.PatternStatus(r.PostFormValue("status")); s {
	case store.PatternDetected:
		return s, nil // a restore, which the store allows only from rejected
	case store.PatternAccepted, store.PatternRejected:
		if s == store.PatternRejected && r.PostFormValue("confirm") != "yes" {
			return "", store.Invalid("confirm", "Rejecting needs the second button, which confirms it.")
		}
		return s, nil
	default:
		return "", store.Invalid("status", "The status must be %s or %s.", store.PatternAccepted, store.PatternRejected)
	}
}

// reviewPattern accepts or rejects a pattern; a rejection needs its
// confirming button.
func (a *App) reviewPattern(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	status, err := reviewStatus(r)
	var p *store.Pattern
	if err == nil {
		p, err = a.opts.Store.ReviewPattern(r.Context(), viewerOf(r).User.ID, id, status)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if a.opts.Analyser != nil && p.Status != store.PatternRejected {
		// Accepting or restoring brings back its flows and correlations.
		if err := a.opts.Analyser.Redetect(r.Context(), p.UserID); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	http.Redirect(w, r, back(r, id), http.StatusSeeOther)
}

// reviewCorrelation accepts or rejects one correlation of a pattern.
func (a *App) reviewCorrelation(w http.ResponseWriter, r *http.Request) {
	id, cid := r.PathValue("id"), r.PathValue("cid")
	v := viewerOf(r)
	// The correlation must be one of this pattern's, and the pattern the user's.
	p, err := a.opts.Store.FindPattern(r.Context(), v.User.ID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	detail, err := a.opts.Store.PatternDetail(r.Context(), p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	err = store.NotFound("Correlation")
	for _, c := range detail.Correlations {
		if c.ID == cid {
			err = nil
		}
	}
	var status store.PatternStatus
	if err == nil {
		status, err = reviewStatus(r)
	}
	if err == nil {
		_, err = a.opts.Store.ReviewCorrelation(r.Context(), v.User.ID, cid, status)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/patterns/"+id, http.StatusSeeOther)
}
