package web

import (
	"html/template"
	"net/http"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// chip is a tag as the entry page shows it.
type chip struct {
	Name    string
	Feeling string // the feeling's name in the vocabulary, for feelings
	Tone    string // pleasant, unpleasant or mixed, for feelings
	High    bool   // a high-energy feeling
	Href    string // the journal filtered by it, for feelings, persons and places
}

// feelingChip is a chip for feeling f, shown as name in loc's language.
func feelingChip(loc *i18n.Locale, name string, f store.Feeling) chip {
	return chip{Name: loc.Feeling(name), Feeling: f.Name, Tone: f.Tone(), High: f.Energy == "high"}
}

// tagChip is a chip for tag t; a feeling, person or place links to the
// entries that share it.
func tagChip(loc *i18n.Locale, t store.Tag, feelings map[string]store.Feeling) chip {
	c := chip{Name: t.Name}
	if f, ok := feelings[t.FeelingID]; ok {
		c = feelingChip(loc, t.Name, f)
		c.Href = filterHref("feeling", f.Name)
	}
	switch t.Type {
	case store.TagPerson:
		c.Href = filterHref("person", t.Name)
	case store.TagLocation:
		c.Href = filterHref("place", t.Name)
	}
	return c
}

// situation is one segment of an entry with the tags found in it.
type situation struct {
	Text  string
	Chips []chip
}

// situations lists an entry's segments, each with its tags in order.
func situations(loc *i18n.Locale, segs []store.Segment, feelings map[string]store.Feeling) []situation {
	var out []situation
	for _, sg := range segs {
		s := situation{Text: sg.Text}
		for _, t := range sg.Tags {
			c := tagChip(loc, t, feelings)
			s.Chips = append(s.Chips, c)
		}
		out = append(out, s)
	}
	return out
}

// chipGroup is the chips of one tag type.
type chipGroup struct {
	Label string
	Chips []chip
}

type entryData struct {
	Entry      entryView
	Language   string
	Original   string
	Translated bool // the text was translated: the original is shown beside it
	Earlier    bool // the tags were found before the text was changed
	Heading    string
	Text       template.HTML // the text shown first, as Markdown, its situations marked
	Groups     []chipGroup
	Situations []situation
	Patterns   []store.PatternRef
	Form       *formError
}

// tagTypes are the tag types in the order the entry page groups them.
var tagTypes = []struct {
	Type  store.TagType
	Label string
}{
	{store.TagTrigger, i18n.Key("What set it off")},
	{store.TagNegativeFeeling, i18n.Key("Unpleasant feelings")},
	{store.TagPositiveFeeling, i18n.Key("Pleasant feelings")},
	{store.TagMixedFeeling, i18n.Key("Mixed feelings")},
	{store.TagBadBehaviour, i18n.Key("What you did that did not help")},
	{store.TagGoodBehaviour, i18n.Key("What you did that helped")},
	{store.TagPerson, i18n.Key("People")},
	{store.TagLocation, i18n.Key("Places")},
	{store.TagActivity, i18n.Key("Doing")},
}

// situationRanges are the byte ranges of an entry's situations in text,
// leaving out any that is not a slice of it.
func situationRanges(text string, segs []store.Segment) [][2]int {
	var out [][2]int
	at := 0
	for _, sg := range segs {
		if sg.Start < at || sg.End > len(text) || sg.Start >= sg.End {
			continue // not a slice of this text: show it unmarked
		}
		out = append(out, [2]int{sg.Start, sg.End})
		at = sg.End
	}
	return out
}

// chips groups the tags of an entry's situations by type, each tag once.
func chips(loc *i18n.Locale, segs []store.Segment, feelings map[string]store.Feeling) []chipGroup {
	seen := map[string]bool{}
	byType := map[store.TagType][]chip{}
	for _, sg := range segs {
		for _, t := range sg.Tags {
			if seen[t.ID] {
				continue
			}
			seen[t.ID] = true
			c := tagChip(loc, t, feelings)
			byType[t.Type] = append(byType[t.Type], c)
		}
	}
	var out []chipGroup
	for _, tt := range tagTypes {
		if len(byType[tt.Type]) > 0 {
			out = append(out, chipGroup{Label: tt.Label, Chips: byType[tt.Type]})
		}
	}
	return out
}

func (a *App) showEntry(w http.ResponseWriter, r *http.Request) {
	a.entry(w, r, http.StatusOK, nil)
}

// entry renders one entry, with form holding a failed edit.
func (a *App) entry(w http.ResponseWriter, r *http.Request, status int, form *formError) {
	v := viewerOf(r)
	ctx := r.Context()
	c, err := a.opts.Store.FindCapture(ctx, v.User.ID, r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	feelings, err := a.feelings(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// The timeline knows the patterns an entry belongs to.
	tl, err := a.opts.Store.Timeline(ctx, v.User.ID, c.OccurredAt, c.OccurredAt.Add(time.Microsecond))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d := entryData{Entry: newEntryView(c, v.Loc, v.Lang), Language: c.Language, Original: c.Original, Form: form,
		Heading: v.Lang.Date(c.OccurredAt.In(v.Loc), i18n.WeekdayDateTime)}
	for _, t := range tl {
		if t.ID == c.ID {
			d.Patterns = named(t.Patterns, a.patternNames(r))
		}
	}
	switch {
	case c.Status == store.StatusProcessed:
		d.Translated = c.Translated != c.Original
		d.Text = markdownMarked(c.Translated, situationRanges(c.Translated, c.Segments))
		d.Groups = chips(v.Lang, c.Segments, feelings)
		d.Situations = situations(v.Lang, c.Segments, feelings)
	default:
		// A changed entry keeps its last analysis until it is read again:
		// its tags are shown as such, its old text is not.
		d.Text = markdown(c.Original)
		d.Groups = chips(v.Lang, c.Segments, feelings)
		d.Earlier = len(d.Groups) > 0
	}
	if form != nil {
		d.Entry.Text = form.Text
	}
	a.render(w, r, status, "entry", page{Title: v.Lang.T("Entry of %s", v.Lang.Date(c.OccurredAt.In(v.Loc), i18n.DayMonthYear)), Nav: "journal", Data: d})
}

// feelings returns the vocabulary of feelings by id.
func (a *App) feelings(r *http.Request) (map[string]store.Feeling, error) {
	list, err := a.opts.Store.Feelings(r.Context())
	if err != nil {
		return nil, err
	}
	m := make(map[string]store.Feeling, len(list))
	for _, f := range list {
		m[f.ID] = f
	}
	return m, nil
}
