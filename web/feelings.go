package web

import (
	"cmp"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// The feelings page's bounds: how many months it may show, and how many
// feelings and accepted patterns it lists.
const (
	feelingsMonths    = 6
	feelingsMaxMonths = 12
	feelingsTop       = 10
	trendPatterns     = 8
	trendWeeks        = 4 // a pattern's recent weeks, set against as many before
)

// feelingsMonthChoices are the spans the page offers.
var feelingsMonthChoices = []int{3, 6, 12}

// weekCount is one week of the feelings page: its Monday and the feelings
// found that week, each feeling once per entry.
type weekCount struct {
	Monday               string // YYYY-MM-DD
	Label                string // "3 Nov 2026"
	Pleasant, Unpleasant int
	Mixed                int // bittersweet, nostalgic: drawn above the pleasant ones
}

// topFeeling is a feeling and how many entries it was found in.
type topFeeling struct {
	Name, Tone string
	Count      int
}

// patternTrend is an accepted pattern's days, week by week.
type patternTrend struct {
	ID, Name, Sentiment string
	Days                []int // days it was seen in each week
	Recent, Before      int   // days in the last trendWeeks weeks, and in as many before
	SVG                 template.HTML
}

type feelingsData struct {
	Months               int
	Choices              []int
	From                 string // the first week's Monday, in words
	Weeks                []weekCount
	Pleasant, Unpleasant int // in all the weeks
	Mixed                int
	WeeksSVG             template.HTML
	Top                  []topFeeling
	TopSVG               template.HTML
	Trends               []patternTrend
	MoreAccepted         int // accepted patterns beyond those shown
}

// feelingsPage shows the user's feelings week by week over the last months
// (?months=N, 1 to feelingsMaxMonths), the feelings found most, and how
// often the accepted patterns came, week by week.
func (a *App) feelingsPage(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	months := feelingsMonths
	if m := r.URL.Query().Get("months"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > feelingsMaxMonths {
			a.fail(w, r, store.Invalid("months", "The months must be a number from 1 to %d.", feelingsMaxMonths))
			return
		}
		months = n
	}
	now := a.opts.Store.Now().In(v.Loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	// Whole weeks, Monday to Sunday, from the week holding the day months
	// ago to this week.
	monday := func(d time.Time) time.Time { return d.AddDate(0, 0, -int(d.Weekday()+6)%7) }
	first, last := monday(today.AddDate(0, -months, 0)), monday(today)
	d := feelingsData{Months: months, Choices: feelingsMonthChoices, From: v.Lang.Date(first, i18n.DayMonthYear)}
	index := map[string]int{} // local date -> week
	for wk := first; !wk.After(last); wk = wk.AddDate(0, 0, 7) {
		for i := range 7 {
			index[wk.AddDate(0, 0, i).Format(time.DateOnly)] = len(d.Weeks)
		}
		d.Weeks = append(d.Weeks, weekCount{Monday: wk.Format(time.DateOnly), Label: v.Lang.Date(wk, i18n.DayMonthYear)})
	}
	end := last.AddDate(0, 0, 7)
	from, to := store.StartOfDay(first.Year(), first.Month(), first.Day(), v.Loc), store.StartOfDay(end.Year(), end.Month(), end.Day(), v.Loc)
	found, err := a.opts.Store.FeelingsFound(r.Context(), v.User.ID, from, to)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	counts := map[string]*topFeeling{}
	for _, f := range found {
		i, ok := index[f.OccurredAt.In(v.Loc).Format(time.DateOnly)]
		if !ok {
			continue
		}
		var tone string
		switch {
		case f.Valence > 0:
			tone = "pleasant"
			d.Weeks[i].Pleasant++
			d.Pleasant++
		case f.Valence == 0: // bittersweet, nostalgic: both at once
			tone = "mixed"
			d.Weeks[i].Mixed++
			d.Mixed++
		default:
			tone = "unpleasant"
			d.Weeks[i].Unpleasant++
			d.Unpleasant++
		}
		if counts[f.Name] == nil {
			counts[f.Name] = &topFeeling{Name: f.Name, Tone: tone}
		}
		counts[f.Name].Count++
	}
	for _, t := range counts {
		d.Top = append(d.Top, *t)
	}
	slices.SortFunc(d.Top, func(a, b topFeeling) int { return cmp.Or(b.Count-a.Count, cmp.Compare(a.Name, b.Name)) })
	d.Top = d.Top[:min(len(d.Top), feelingsTop)]
	if d.Trends, d.MoreAccepted, err = a.trends(r, v, from, to, index, len(d.Weeks)); err != nil {
		a.fail(w, r, err)
		return
	}
	d.WeeksSVG = weeksSVG(v.Lang, d.Weeks, wideWeeks) + weeksSVG(v.Lang, d.Weeks, narrowWeeks)
	d.TopSVG = topFeelingsSVG(v.Lang, d.Top)
	a.render(w, r, http.StatusOK, "feelings", page{Title: v.Lang.T("Feelings"), Nav: "feelings", Data: d})
}

// trends counts, for up to trendPatterns accepted patterns of the viewer,
// the days each was seen in each of the n weeks that index maps local dates
// to, and says how many accepted patterns are left out.
func (a *App) trends(r *http.Request, v *viewer, from, to time.Time, index map[string]int, n int) ([]patternTrend, int, error) {
	all, err := a.opts.Store.AllPatterns(r.Context(), v.User.ID, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []patternTrend
	name := a.patternNames(r)
	byID := map[string]int{}
	more := 0
	for _, p := range all {
		if p.Status != store.PatternAccepted {
			continue
		}
		if len(out) == trendPatterns {
			more++
			continue
		}
		byID[p.ID] = len(out)
		out = append(out, patternTrend{ID: p.ID, Name: name(p.ID, p.Name), Sentiment: p.Sentiment, Days: make([]int, n)})
	}
	if len(out) == 0 {
		return nil, more, nil
	}
	list, err := a.opts.Store.Timeline(r.Context(), v.User.ID, from, to)
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{} // pattern id + local date
	for _, c := range list {
		date := c.OccurredAt.In(v.Loc).Format(time.DateOnly)
		for _, p := range c.Patterns {
			j, ok := byID[p.ID]
			week, inSpan := index[date]
			if !ok || !inSpan || seen[p.ID+date] {
				continue
			}
			seen[p.ID+date] = true
			out[j].Days[week]++
		}
	}
	for j := range out {
		t := &out[j]
		for i, days := range t.Days {
			switch {
			case i >= n-trendWeeks:
				t.Recent += days
			case i >= n-2*trendWeeks:
				t.Before += days
			}
		}
		t.SVG = trendSVG(v.Lang, t.Name, t.Sentiment, t.Days)
	}
	return out, more, nil
}
