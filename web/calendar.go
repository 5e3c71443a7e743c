package web

import (
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// calendarDay is one cell of the month grid.
type calendarDay struct {
	Date     string
	Day      int
	InMonth  bool
	Today    bool
	Entries  []entryView
	Patterns []store.PatternRef
	// Mood is the colour band of the day's balance of feelings and
	// MoodWords says it; empty on a day without feelings.
	Mood, MoodWords string
}

// weekHead is a column head of the month grid.
type weekHead struct{ Name, Short string }

type calendarData struct {
	Year       bool // the year view
	Title      string
	WeekHead   []weekHead // the days of the week from the locale's first
	Weeks      [][]calendarDay
	Prev, Next string // links to the month or year before and after
	Other      string // the link to the other view
	YearSVG    template.HTML
	Written    int // days with entries in the year view
}

// calendar shows a month grid (?month=YYYY-MM, default this month) or a
// year of squares (?year=YYYY).
func (a *App) calendar(w http.ResponseWriter, r *http.Request) {
	v := viewerOf(r)
	now := a.opts.Store.Now().In(v.Loc)
	if y := r.URL.Query().Get("year"); y != "" {
		year, err := strconv.Atoi(y)
		if err != nil || year < 1900 || year > store.MaxYear-1 {
			a.fail(w, r, store.Invalid("year", "%s", v.Lang.T("The year must be a year such as %s, from 1900.", strconv.Itoa(now.Year()))))
			return
		}
		a.yearView(w, r, year)
		return
	}
	month := time.Date(now.Year(), now.Month(), 1, 12, 0, 0, 0, time.UTC)
	if m := r.URL.Query().Get("month"); m != "" {
		t, err := time.Parse("2006-01", m)
		if err != nil || t.Year() < 1900 || t.Year() > store.MaxYear-1 {
			a.fail(w, r, store.Invalid("month", "%s", v.Lang.T("The month must look like %s, from 1900.", now.Format("2006-01"))))
			return
		}
		month = t.Add(12 * time.Hour)
	}
	// The grid runs from the locale's first day of the week (Monday, or
	// Sunday), from the week of the 1st to the week of the last day.
	start := v.Lang.WeekStart(month)
	end := month.AddDate(0, 1, 0)
	if s := v.Lang.WeekStart(end); !s.Equal(end) {
		end = s.AddDate(0, 0, 7)
	}
	list, err := a.opts.Store.Timeline(r.Context(), v.User.ID, store.StartOfDay(start.Year(), start.Month(), start.Day(), v.Loc),
		store.StartOfDay(end.Year(), end.Month(), end.Day(), v.Loc))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d := calendarData{Title: v.Lang.Date(month, i18n.MonthYear), Prev: "/calendar?month=" + month.AddDate(0, -1, 0).Format("2006-01"),
		Next: "/calendar?month=" + month.AddDate(0, 1, 0).Format("2006-01"), Other: "/calendar?year=" + strconv.Itoa(month.Year())}
	for _, wd := range v.Lang.Week() {
		d.WeekHead = append(d.WeekHead, weekHead{Name: v.Lang.Weekday(wd), Short: v.Lang.WeekdayMin(wd)})
	}
	today := now.Format(time.DateOnly)
	// Each week is a whole array of seven from the start, so a pointer to a
	// cell stays the cell: appending to a growing slice would move earlier
	// cells and leave their pointers behind.
	byDay := map[string]*calendarDay{}
	for day := start; day.Before(end); day = day.AddDate(0, 0, 7) {
		week := make([]calendarDay, 7)
		for i := range week {
			cell := day.AddDate(0, 0, i)
			key := cell.Format(time.DateOnly)
			week[i] = calendarDay{Date: key, Day: cell.Day(), InMonth: cell.Month() == month.Month(), Today: key == today}
			byDay[key] = &week[i]
		}
		d.Weeks = append(d.Weeks, week)
	}
	last := end.AddDate(0, 0, -1)
	days, err := journal.Timeline(r.Context(), a.opts.Store, v.User.ID, start.Format(time.DateOnly), last.Format(time.DateOnly))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, day := range days {
		if cd, ok := byDay[day.Date]; ok && day.Feelings > 0 {
			cd.Mood, cd.MoodWords = moodOf(v.Lang, day)
		}
	}
	name := a.patternNames(r)
	for _, c := range list {
		cd, ok := byDay[c.OccurredAt.In(v.Loc).Format(time.DateOnly)]
		if !ok {
			continue
		}
		cd.Entries = append(cd.Entries, entryView{ID: c.ID, Status: string(c.Status), StatusWords: v.Lang.T(statusWords[c.Status]), Time: c.OccurredAt.In(v.Loc).Format("15:04")})
		for _, p := range c.Patterns {
			if !hasPattern(cd.Patterns, p.ID) {
				p.Name = name(p.ID, p.Name)
				cd.Patterns = append(cd.Patterns, p)
			}
		}
	}
	a.render(w, r, http.StatusOK, "calendar", page{Title: d.Title, Nav: "calendar", Data: d})
}

func hasPattern(list []store.PatternRef, id string) bool {
	for _, p := range list {
		if p.ID == id {
			return true
		}
	}
	return false
}

// yearView shows a square a day, coloured by the pleasantness of the day's
// feelings, from the journal's timeline read in pieces as the API gives it.
func (a *App) yearView(w http.ResponseWriter, r *http.Request, year int) {
	v := viewerOf(r)
	days, err := journal.Year(r.Context(), a.opts.Store, v.User.ID, year)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	mood, written := map[string]journal.Day{}, map[string]bool{}
	for _, d := range days {
		if d.Feelings > 0 {
			mood[d.Date] = d
		}
		if len(d.Captures) > 0 {
			written[d.Date] = true
		}
	}
	now := a.opts.Store.Now().In(v.Loc)
	d := calendarData{Year: true, Title: strconv.Itoa(year), YearSVG: yearSVG(v.Lang, year, mood, written, now.Format(time.DateOnly)) + yearMonthsSVG(v.Lang, year, mood, written, now.Format(time.DateOnly)), Written: len(written),
		Prev: "/calendar?year=" + strconv.Itoa(year-1), Next: "/calendar?year=" + strconv.Itoa(year+1),
		Other: "/calendar?month=" + strconv.Itoa(year) + "-01"}
	if now.Year() == year {
		d.Other = "/calendar?month=" + now.Format("2006-01")
	}
	a.render(w, r, http.StatusOK, "calendar", page{Title: d.Title, Nav: "calendar", Data: d})
}
