package web

import (
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// Charts are SVG made here, on the server; their colours come from classes
// the stylesheet sets per theme.

// esc escapes text for SVG.
func esc(s string) string { return template.HTMLEscapeString(s) }

// dayStrip draws the n days ending today as squares, filled on the days in
// on; up to 8 weeks make one row, longer spans a week per column.
func dayStrip(loc *i18n.Locale, on map[string]bool, today time.Time, n int) template.HTML {
	const cell, gap = 10, 2
	rows := 1
	if n > 60 {
		rows = 7
	}
	cols := (n + rows - 1) / rows
	w, h := cols*(cell+gap), rows*(cell+gap)
	var b strings.Builder
	count := 0
	for i := 0; i < n; i++ {
		if on[today.AddDate(0, 0, i-n+1).Format(time.DateOnly)] {
			count++
		}
	}
	fmt.Fprintf(&b, `<svg class="strip" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h, esc(loc.T("Seen on %d of the last %d days", count, n)))
	for i := 0; i < n; i++ {
		day := today.AddDate(0, 0, i-n+1).Format(time.DateOnly)
		class := "day"
		if on[day] {
			class = "day on"
		}
		t, _ := time.Parse(time.DateOnly, day)
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d" rx="2"><title>%s</title></rect>`,
			class, (i/rows)*(cell+gap), (i%rows)*(cell+gap), cell, cell, esc(loc.Date(t, i18n.WeekdayDayMonthYear)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// flowLayout is the geometry of a loop figure: wide for a desktop, narrow
// (names on two short lines) for a phone, so neither scrolls sideways.
type flowLayout struct {
	colW, nodeW, nodeH, gap, top int
	chars                        int    // the most runes of a name on one line
	lines                        int    // how many lines a name may take
	attrs                        string // the svg element's own attributes
}

var (
	wideFlows   = flowLayout{220, 170, 34, 14, 30, 24, 1, `data-testid="flows" class="flows wide"`}
	narrowFlows = flowLayout{120, 108, 44, 10, 30, 14, 2, `data-testid="flows-narrow" class="flows narrow" aria-hidden="true"`}
)

// flowsSVG draws a pattern's loop: what set it off, how it felt and what
// was done, in three columns, with each line as thick as the number of
// situations that link its two ends; once wide and once narrow, for the
// style sheet to show the one that fits. Triggers and behaviours are
// grouped under their categories, so that one-off wordings of the same
// thing make one node, whose title lists them (for an English reader; any
// other reads how many situations the node holds, see flowsNamed for the
// groups' names).
func flowsSVG(loc *i18n.Locale, flows []store.Flow) template.HTML {
	return flowsIn(loc, flows, wideFlows) + flowsIn(loc, flows, narrowFlows)
}

// nameLines cuts a name into at most n lines of up to chars runes, at
// spaces where it can, the last one cut short with an ellipsis.
func nameLines(name string, chars, n int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(name) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= chars:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	out = append(out, line)
	if len(out) > n {
		out = append(out[:n-1], strings.Join(out[n-1:], " "))
	}
	for i, l := range out {
		if r := []rune(l); len(r) > chars {
			out[i] = string(r[:chars-1]) + "…"
		}
	}
	return out
}

func flowsIn(loc *i18n.Locale, flows []store.Flow, lay flowLayout) template.HTML {
	type link struct{ from, to string }
	cols := [3][]string{}
	index := [3]map[string]int{{}, {}, {}}
	items := [3]map[string][]string{{}, {}, {}} // the names each node groups
	add := func(c int, group, name string) string {
		if group == "" {
			group = name
		}
		if _, ok := index[c][group]; !ok {
			index[c][group] = len(cols[c])
			cols[c] = append(cols[c], group)
		}
		if !slices.Contains(items[c][group], name) {
			items[c][group] = append(items[c][group], name)
		}
		return group
	}
	links := [2]map[link]int{{}, {}}
	through := [3]map[string]int{{}, {}, {}} // situations a node is in
	for _, f := range flows {
		trigger := add(0, f.TriggerCategory, f.Trigger)
		feeling := add(1, "", f.Feeling)
		behaviour := add(2, f.BehaviourCategory, f.Behaviour)
		links[0][link{trigger, feeling}]++
		links[1][link{feeling, behaviour}]++
		through[0][trigger]++
		through[2][behaviour]++
	}
	// The wordings a group gathers are the analysis's, in English: a
	// reader of another language is told how many situations it holds.
	wordings := loc.Lang == i18n.Default
	colW, nodeW, nodeH, gap, top := lay.colW, lay.nodeW, lay.nodeH, lay.gap, lay.top
	rows := max(len(cols[0]), len(cols[1]), len(cols[2]))
	width, height := 2*colW+nodeW, top+rows*(nodeH+gap)
	y := func(c int, name string) int {
		// Each column is centred on the tallest one.
		off := (rows - len(cols[c])) * (nodeH + gap) / 2
		return top + off + index[c][name]*(nodeH+gap) + nodeH/2
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg %s viewBox="0 0 %d %d" width="%d" height="%d" role="img"><title>%s</title>`,
		lay.attrs, width, height, width, height, esc(loc.T("What sets it off, how it feels and what you do, from %d situations", len(flows))))
	for c, heading := range []string{loc.T("Sets it off"), loc.T("Feels"), loc.T("You do")} {
		// A heading longer than its column (some languages say more) is
		// squeezed into it rather than run into the next one.
		fit := ""
		if n := utf8.RuneCountInString(heading); n*8 > colW-12 {
			fit = fmt.Sprintf(` textLength="%d" lengthAdjust="spacingAndGlyphs"`, colW-12)
		}
		fmt.Fprintf(&b, `<text class="heading" x="%d" y="18"%s>%s</text>`, c*colW, fit, esc(heading))
	}
	// The middle column's names are feelings, said in loc's language.
	said := func(c int, name string) string {
		if c == 1 {
			return loc.Feeling(name)
		}
		return name
	}
	for c := range 2 {
		keys := make([]link, 0, len(links[c]))
		for k := range links[c] {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b link) int { return strings.Compare(a.from+"\x00"+a.to, b.from+"\x00"+b.to) })
		for _, k := range keys {
			n := links[c][k]
			x1, x2 := c*colW+nodeW, (c+1)*colW
			y1, y2 := y(c, k.from), y(c+1, k.to)
			mid := (x1 + x2) / 2
			fmt.Fprintf(&b, `<path class="link" d="M%d %d C%d %d %d %d %d %d" stroke-width="%d"><title>%s → %s: %s</title></path>`,
				x1, y1, mid, y1, mid, y2, x2, y2, min(2+2*(n-1), 14), esc(said(c, k.from)), esc(said(c+1, k.to)), esc(loc.T("%d situations", n)))
		}
	}
	for c := range 3 {
		for _, name := range cols[c] {
			yy := y(c, name) - nodeH/2
			lines := nameLines(said(c, name), lay.chars, lay.lines)
			fmt.Fprintf(&b, `<g class="node col%d"><rect x="%d" y="%d" width="%d" height="%d" rx="6"></rect><text x="%d" y="%d">`,
				c, c*colW, yy, nodeW, nodeH, c*colW+8, yy+nodeH/2+5-(len(lines)-1)*8)
			for i, l := range lines {
				fmt.Fprintf(&b, `<tspan x="%d" dy="%d">%s</tspan>`, c*colW+8, min(i, 1)*16, esc(l))
			}
			title := said(c, name)
			if group := items[c][name]; wordings && (len(group) > 1 || group[0] != name) {
				title += ": " + strings.Join(group, "; ")
			} else if !wordings && c != 1 {
				title += ": " + loc.T("%d situations", through[c][name])
			}
			fmt.Fprintf(&b, `<title>%s</title></text></g>`, esc(title))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// yearSVG draws one square a day of the year, a week per column, coloured by
// how pleasant that day's feelings were: mood maps a date with feelings to
// its day of the timeline; written marks days with entries.
// today, a local date, is outlined so that a narrow screen can scroll to it.
func yearSVG(loc *i18n.Locale, year int, mood map[string]journal.Day, written map[string]bool, today string) template.HTML {
	const cell, gap, left, top = 11, 2, 0, 14 // top: room for the months' names
	first := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC)
	lead := int(first.Weekday()-loc.FirstWeekday()+7) % 7 // a row a weekday, the locale's first on top
	days := first.AddDate(1, 0, 0).Sub(first).Hours() / 24
	weeks := (lead + int(days) + 6) / 7
	w, h := left+weeks*(cell+gap), top+7*(cell+gap)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="year" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, esc(loc.T("Each day of %s, coloured by how pleasant its feelings were", strconv.Itoa(year))))
	for m := time.January; m <= time.December; m++ {
		i := lead + time.Date(year, m, 1, 12, 0, 0, 0, time.UTC).YearDay() - 1
		fmt.Fprintf(&b, `<text class="month-name" x="%d" y="10">%s</text>`, left+(i+6)/7*(cell+gap), esc(loc.MonthShort(m)))
	}
	for d := first; d.Year() == year; d = d.AddDate(0, 0, 1) {
		i := lead + d.YearDay() - 1
		key := d.Format(time.DateOnly)
		class, words := dayMood(loc, key, mood, written, today)
		fmt.Fprintf(&b, `<a href="?month=%s"><rect data-date="%s" class="mood %s" x="%d" y="%d" width="%d" height="%d" rx="2"><title>%s: %s</title></rect></a>`,
			d.Format("2006-01"), key, class, left+(i/7)*(cell+gap), top+(i%7)*(cell+gap), cell, cell, esc(loc.Date(d, i18n.WeekdayDayMonthYear)), esc(words))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// yearMonthsSVG draws the year for a narrow screen: a small grid per month,
// three months a row, from the first month with entries (or today's, or
// January) to December, so that it opens on the months with data and fits
// a phone without sideways scrolling.
func yearMonthsSVG(loc *i18n.Locale, year int, mood map[string]journal.Day, written map[string]bool, today string) template.HTML {
	const cell, gap, monthW, head, perRow = 12, 2, 7*(12+2) + 10, 16, 3
	from := time.December
	for key := range written {
		if t, err := time.Parse(time.DateOnly, key); err == nil && t.Year() == year && t.Month() < from {
			from = t.Month()
		}
	}
	if len(written) == 0 {
		from = time.January
		if t, err := time.Parse(time.DateOnly, today); err == nil && t.Year() == year {
			from = t.Month()
		}
	}
	n := int(time.December-from) + 1
	monthH := head + 6*(cell+gap) + 6
	w, h := perRow*monthW, (n+perRow-1)/perRow*monthH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="year months" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h, esc(loc.T("Each day of %s from %s, coloured by how pleasant its feelings were", strconv.Itoa(year), loc.Month(from))))
	for i := range n {
		m := from + time.Month(i)
		x0, y0 := i%perRow*monthW, i/perRow*monthH
		fmt.Fprintf(&b, `<text class="month-name" x="%d" y="%d">%s</text>`, x0, y0+11, esc(loc.MonthShort(m)))
		first := time.Date(year, m, 1, 12, 0, 0, 0, time.UTC)
		lead := int(first.Weekday()-loc.FirstWeekday()+7) % 7
		for d := first; d.Month() == m; d = d.AddDate(0, 0, 1) {
			k := lead + d.Day() - 1
			key := d.Format(time.DateOnly)
			class, words := dayMood(loc, key, mood, written, today)
			fmt.Fprintf(&b, `<a href="?month=%s"><rect data-day="%s" class="mood %s" x="%d" y="%d" width="%d" height="%d" rx="2"><title>%s: %s</title></rect></a>`,
				d.Format("2006-01"), key, class, x0+(k%7)*(cell+gap), y0+head+(k/7)*(cell+gap), cell, cell, esc(loc.Date(d, i18n.WeekdayDayMonthYear)), esc(words))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// dayMood names the colour band of the local date key and says it in
// words: by its feelings' mean valence, plain for entries without
// feelings, none for no entry; today is marked besides.
func dayMood(loc *i18n.Locale, key string, mood map[string]journal.Day, written map[string]bool, today string) (class, words string) {
	class, words = "none", loc.T("no entry")
	if d, ok := mood[key]; ok {
		class, words = moodOf(loc, d)
	} else if written[key] {
		class, words = "plain", loc.T("entries, no feelings found")
	}
	if key == today {
		class, words = class+" today", loc.T("%s, today", words)
	}
	return class, words
}

// moodOf names the colour band of a day with feelings: mixed when most of
// them are mixed ones, else by the balance of the others.
func moodOf(loc *i18n.Locale, d journal.Day) (class, words string) {
	if d.Mixed*2 > d.Feelings {
		return "mixed", loc.T("mostly mixed feelings")
	}
	return moodClass(loc, d.Pleasantness)
}

// moodClass names the colour band of a mean valence.
func moodClass(loc *i18n.Locale, v float64) (class, words string) {
	switch {
	case v >= 0.5:
		return "m2", loc.T("mostly pleasant feelings")
	case v > 0:
		return "m1", loc.T("more pleasant than unpleasant feelings")
	case v == 0:
		return "m0", loc.T("pleasant and unpleasant feelings alike")
	case v > -0.5:
		return "m-1", loc.T("more unpleasant than pleasant feelings")
	default:
		return "m-2", loc.T("mostly unpleasant feelings")
	}
}
