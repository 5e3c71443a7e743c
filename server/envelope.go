package server

import (
	"net/url"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/store"
)

// DefaultPageSize is the number of items a list returns when no limit is given.
const DefaultPageSize = 15

// Timestamp is a time sent as UTC with six fractional digits and a trailing
// Z, such as 2026-11-22T08:21:03.120000Z.
type Timestamp time.Time

// MarshalJSON implements json.Marshaler.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + store.FormatTime(time.Time(t)) + `"`), nil
}

// Schema describes Timestamp in the OpenAPI document.
func (Timestamp) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Format: "date-time", Examples: []any{"2026-11-22T08:21:03.120000Z"},
		Description: "UTC, six fractional digits, trailing Z."}
}

// stamp converts an optional time.
func stamp(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	ts := Timestamp(*t)
	return &ts
}

// Data wraps a single resource as {data: ...}.
type Data[T any] struct {
	Data T `json:"data"`
}

// one returns the output of an operation that answers one resource.
func one[T any](v T) *struct{ Body Data[T] } {
	return &struct{ Body Data[T] }{Body: Data[T]{Data: v}}
}

// PageParams are the paging query parameters every list takes.
type PageParams struct {
	Page  int `query:"page" minimum:"1" default:"1" doc:"Page number, from 1. Empty means the first page; a page past the last one is empty."`
	Limit int `query:"limit" minimum:"1" maximum:"1000" default:"15" doc:"Items per page, 1 to 1000."`
}

// maxPage bounds the page number handed to the store: past it, even a limit
// of 1 would skip more rows than a list can hold, so the page is empty
// either way, and the offset cannot overflow.
const maxPage = 1 << 40

// store returns the page to read. Any page past the last one is empty: a
// huge page number gives an empty page, never a wrapped offset.
func (p PageParams) store() store.Page {
	return store.Page{Page: min(p.Page, maxPage), Limit: p.Limit}
}

// List is the envelope of every list: the page of items, links to the
// neighbouring pages and counts.
type List[T any] struct {
	Data  []T       `json:"data"`
	Links ListLinks `json:"links"`
	Meta  ListMeta  `json:"meta"`
}

// ListLinks are the URLs of the first, last, previous and next pages; the
// last two are null at the ends.
type ListLinks struct {
	First *string `json:"first" nullable:"true"`
	Last  *string `json:"last" nullable:"true"`
	Prev  *string `json:"prev" nullable:"true"`
	Next  *string `json:"next" nullable:"true"`
}

// ListMeta counts the list and says where this page lies in it.
type ListMeta struct {
	CurrentPage int        `json:"current_page" minimum:"1"`
	From        *int       `json:"from" minimum:"1" nullable:"true" doc:"Number of the first item on this page; null when the page is empty."`
	LastPage    int        `json:"last_page" minimum:"1"`
	Links       []PageLink `json:"links" doc:"Paginator links: previous, the page numbers (with \"...\" for gaps), next."`
	Path        *string    `json:"path" nullable:"true" doc:"Base URL of the page links."`
	PerPage     int        `json:"per_page" minimum:"0"`
	To          *int       `json:"to" minimum:"1" nullable:"true" doc:"Number of the last item on this page; null when the page is empty."`
	Total       int        `json:"total" minimum:"0"`
}

// PageLink is one button of a paginator.
type PageLink struct {
	URL    *string `json:"url" nullable:"true"`
	Label  string  `json:"label"`
	Active bool    `json:"active"`
}

// Paginator labels.
const (
	labelPrev = "« Previous"
	labelNext = "Next »"
	labelGap  = "..."
)

// newList builds the envelope for one page of items out of total, at the
// absolute URL base (such as http://host/api/captures).
func newList[T any](items []T, total int, p PageParams, base string) *struct{ Body List[T] } {
	return newFilteredList(items, total, p, base, nil)
}

// newFilteredList is newList for a list narrowed by query parameters, which
// every page link keeps.
func newFilteredList[T any](items []T, total int, p PageParams, base string, filter url.Values) *struct{ Body List[T] } {
	if items == nil {
		items = []T{}
	}
	lastPage := max(1, (total+p.Limit-1)/p.Limit)
	pageURL := func(n int) *string {
		q := url.Values{}
		for k, v := range filter {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(n))
		if p.Limit != DefaultPageSize {
			q.Set("limit", strconv.Itoa(p.Limit))
		}
		u := base + "?" + q.Encode()
		return &u
	}
	var l List[T]
	l.Data = items
	l.Links.First, l.Links.Last = pageURL(1), pageURL(lastPage)
	if p.Page > 1 {
		l.Links.Prev = pageURL(min(p.Page-1, lastPage))
	}
	if p.Page < lastPage {
		l.Links.Next = pageURL(p.Page + 1)
	}
	l.Meta = ListMeta{CurrentPage: p.Page, LastPage: lastPage, PerPage: p.Limit, Total: total, Path: &base}
	if len(items) > 0 && p.Page <= maxPage {
		from := (p.Page-1)*p.Limit + 1
		to := from + len(items) - 1
		l.Meta.From, l.Meta.To = &from, &to
	}
	l.Meta.Links = append(l.Meta.Links, PageLink{URL: l.Links.Prev, Label: labelPrev})
	// Past the last page, the paginator shows the pages before it.
	for _, n := range pageWindow(min(p.Page, lastPage+1), lastPage) {
		if n == 0 {
			l.Meta.Links = append(l.Meta.Links, PageLink{Label: labelGap})
			continue
		}
		l.Meta.Links = append(l.Meta.Links, PageLink{URL: pageURL(n), Label: strconv.Itoa(n), Active: n == p.Page})
	}
	l.Meta.Links = append(l.Meta.Links, PageLink{URL: l.Links.Next, Label: labelNext})
	return &struct{ Body List[T] }{Body: l}
}

// pageWindow lists the page numbers a paginator shows, 0 standing for a gap:
// every page when there are few, otherwise the first two, three either side
// of the current one and the last two.
func pageWindow(current, last int) []int {
	const side = 3
	if last <= 2*side+6 {
		pages := make([]int, last)
		for i := range pages {
			pages[i] = i + 1
		}
		return pages
	}
	var pages []int
	add := func(from, to int) {
		for n := max(from, 1); n <= min(to, last); n++ {
			if len(pages) > 0 && n <= pages[len(pages)-1] {
				continue
			}
			if len(pages) > 0 && pages[len(pages)-1] != 0 && n > pages[len(pages)-1]+1 {
				pages = append(pages, 0)
			}
			pages = append(pages, n)
		}
	}
	add(1, 2)
	add(current-side, current+side)
	add(last-1, last)
	return pages
}
