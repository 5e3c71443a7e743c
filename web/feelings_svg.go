package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
)

// weeksLayout is the geometry of the weekly feelings figure: wide for a
// desktop, narrow for a phone, so that its words stay readable on both.
type weeksLayout struct {
	width, half int    // the figure's width, and the height of each half
	attrs       string // the svg element's own attributes
}

var (
	wideWeeks   = weeksLayout{640, 80, `data-testid="weeks" class="weeks wide"`}
	narrowWeeks = weeksLayout{340, 70, `class="weeks compact" aria-hidden="true"`}
)

// weeksSVG draws the feelings of each week as two bars from one line:
// pleasant ones up, unpleasant ones down, each bar as long as its count;
// mixed ones (pleasant and unpleasant at once) sit on top of the pleasant.
func weeksSVG(loc *i18n.Locale, weeks []weekCount, lay weeksLayout) template.HTML {
	const left, top, font = 26, 6, 11
	pleasant, unpleasant, mixed, most := 0, 0, 0, 1
	for _, w := range weeks {
		pleasant, unpleasant, mixed = pleasant+w.Pleasant, unpleasant+w.Unpleasant, mixed+w.Mixed
		most = max(most, w.Pleasant+w.Mixed, w.Unpleasant)
	}
	axis := top + lay.half
	height := axis + lay.half + font + 8
	slot := float64(lay.width-left) / float64(max(len(weeks), 1))
	bar := max(slot*0.7, 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg %s viewBox="0 0 %d %d" width="%d" height="%d" role="img"><title>%s</title>`,
		lay.attrs, lay.width, height, lay.width, height, esc(loc.T("Pleasant and unpleasant feelings each week")))
	fmt.Fprintf(&b, `<desc>%s</desc>`, esc(loc.T("Pleasant: %d, unpleasant: %d, mixed: %d, in %d weeks; the most in one week: %d.", pleasant, unpleasant, mixed, len(weeks), most)))
	fmt.Fprintf(&b, `<text class="scale" x="0" y="%d">%d</text><text class="scale" x="0" y="%d">0</text><text class="scale" x="0" y="%d">%d</text>`,
		top+font-2, most, axis+4, axis+lay.half, most)
	lastLabel := -100.0
	// Where months lie too close for every name, every other one is named.
	every := time.Month(1)
	if 4.35*slot < 30 {
		every = 2
	}
	for i, w := range weeks {
		x := float64(left) + float64(i)*slot + (slot-bar)/2
		up := float64(w.Pleasant) / float64(most) * float64(lay.half)
		down := float64(w.Unpleasant) / float64(most) * float64(lay.half)
		both := float64(w.Mixed) / float64(most) * float64(lay.half)
		fmt.Fprintf(&b, `<g data-week="%s" data-pleasant="%d" data-unpleasant="%d" data-mixed="%d"><title>%s</title>`,
			w.Monday, w.Pleasant, w.Unpleasant, w.Mixed, esc(loc.T("Week of %s. Pleasant: %d, unpleasant: %d, mixed: %d", w.Label, w.Pleasant, w.Unpleasant, w.Mixed)))
		fmt.Fprintf(&b, `<rect class="bar pleasant" x="%.1f" y="%.1f" width="%.1f" height="%.1f"></rect>`, x, float64(axis)-up, bar, up)
		if w.Mixed > 0 {
			fmt.Fprintf(&b, `<rect class="bar mixed" x="%.1f" y="%.1f" width="%.1f" height="%.1f"></rect>`, x, float64(axis)-up-both, bar, both)
		}
		fmt.Fprintf(&b, `<rect class="bar unpleasant" x="%.1f" y="%d" width="%.1f" height="%.1f"></rect>`, x, axis, bar, down)
		// A hit area as tall as the figure, so a week's title shows over
		// its empty part too.
		fmt.Fprintf(&b, `<rect class="hit" x="%.1f" y="%d" width="%.1f" height="%d"></rect></g>`, float64(left)+float64(i)*slot, top, slot, 2*lay.half)
		// Each month is named under the first week that starts in it,
		// where its name has room.
		if m, ok := weekMonth(weeks, i); ok && (m.Month()-1)%every == 0 && x-lastLabel >= 28 {
			fmt.Fprintf(&b, `<text class="scale" x="%.1f" y="%d">%s</text>`, x, height-4, esc(loc.MonthShort(m.Month())))
			lastLabel = x
		}
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"></line></svg>`, left, axis, lay.width, axis)
	return template.HTML(b.String())
}

// weekMonth returns week i's Monday when week i is the first week
// starting in that month.
func weekMonth(weeks []weekCount, i int) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, weeks[i].Monday)
	if err != nil {
		return t, false
	}
	// The first week is named only when its month starts in it: else
	// the name would crowd the next month's.
	if t.AddDate(0, 0, -7).Month() == t.Month() && (i > 0 || t.Day() > 7) {
		return t, false
	}
	return t, true
}

// topFeelingsSVG draws the feelings found most as bars, one a row, each as
// long as the number of entries it was found in.
func topFeelingsSVG(loc *i18n.Locale, top []topFeeling) template.HTML {
	const width, row, nameW, barW = 340, 28, 118, 180
	if len(top) == 0 {
		return ""
	}
	most := top[0].Count
	var b, words strings.Builder
	for i, f := range top {
		if i > 0 {
			words.WriteString(", ")
		}
		fmt.Fprintf(&words, "%s %d", loc.Feeling(f.Name), f.Count)
	}
	fmt.Fprintf(&b, `<svg data-testid="top-feelings" class="top-feelings" viewBox="0 0 %d %d" width="%d" height="%d" role="img"><title>%s</title><desc>%s</desc>`,
		width, len(top)*row, width, len(top)*row, esc(loc.T("The feelings found most")), esc(words.String()))
	for i, f := range top {
		y := i * row
		w := max(float64(f.Count)/float64(most)*barW, 2)
		said := esc(loc.Feeling(f.Name))
		fmt.Fprintf(&b, `<g data-feeling="%s" data-count="%d"><title>%s</title><text x="0" y="%d">%s</text>`,
			esc(f.Name), f.Count, esc(fmt.Sprintf("%s: %d", loc.Feeling(f.Name), f.Count)), y+19, said)
		fmt.Fprintf(&b, `<rect class="bar %s" x="%d" y="%d" width="%.1f" height="16" rx="3"></rect><text class="count" x="%.1f" y="%d">%d</text></g>`,
			f.Tone, nameW, y+6, w, float64(nameW)+w+6, y+19, f.Count)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// trendSVG draws the days a pattern was seen in each week, at most seven,
// as small bars, in its sentiment's colour.
func trendSVG(loc *i18n.Locale, name, sentiment string, days []int) template.HTML {
	const width, height = 340, 36
	slot := float64(width) / float64(max(len(days), 1))
	bar := max(slot*0.7, 1)
	var b strings.Builder
	// The figure stretches to the width it is given: it holds no words.
	fmt.Fprintf(&b, `<svg class="trend" viewBox="0 0 %d %d" width="%d" height="%d" preserveAspectRatio="none" role="img"><title>%s</title>`,
		width, height+2, width, height+2, esc(loc.T("Days with %s, each week", name)))
	for i, n := range days {
		h := float64(n) / 7 * height
		if n > 0 {
			h = max(h, 4) // a day is seen, however small the figure
		}
		fmt.Fprintf(&b, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"></rect>`, sentiment, float64(i)*slot+(slot-bar)/2, height-h, bar, h)
	}
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d" vector-effect="non-scaling-stroke"></line></svg>`, height, width, height)
	return template.HTML(b.String())
}
