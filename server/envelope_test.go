package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestNewList(t *testing.T) {
	const base = "http://h/api/captures"
	t.Run("MiddlePage", func(t *testing.T) {
		out := newList([]int{6, 7, 8, 9, 10}, 12, PageParams{Page: 2, Limit: 5}, base)
		b := marshal(t, out.Body)
		want := `{"data":[6,7,8,9,10],` +
			`"links":{"first":"http://h/api/captures?limit=5&page=1","last":"http://h/api/captures?limit=5&page=3",` +
			`"prev":"http://h/api/captures?limit=5&page=1","next":"http://h/api/captures?limit=5&page=3"},` +
			`"meta":{"current_page":2,"from":6,"last_page":3,"links":[` +
			`{"url":"http://h/api/captures?limit=5&page=1","label":"« Previous","active":false},` +
			`{"url":"http://h/api/captures?limit=5&page=1","label":"1","active":false},` +
			`{"url":"http://h/api/captures?limit=5&page=2","label":"2","active":true},` +
			`{"url":"http://h/api/captures?limit=5&page=3","label":"3","active":false},` +
			`{"url":"http://h/api/captures?limit=5&page=3","label":"Next »","active":false}],` +
			`"path":"http://h/api/captures","per_page":5,"to":10,"total":12}}`
		if got := b; got != want {
			t.Fatalf("envelope\n got %s\nwant %s", got, want)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		out := newList[int](nil, 0, PageParams{Page: 1, Limit: DefaultPageSize}, base)
		b := marshal(t, out.Body)
		want := `{"data":[],"links":{"first":"http://h/api/captures?page=1","last":"http://h/api/captures?page=1","prev":null,"next":null},` +
			`"meta":{"current_page":1,"from":null,"last_page":1,"links":[{"url":null,"label":"« Previous","active":false},` +
			`{"url":"http://h/api/captures?page=1","label":"1","active":true},{"url":null,"label":"Next »","active":false}],` +
			`"path":"http://h/api/captures","per_page":15,"to":null,"total":0}}`
		if got := b; got != want {
			t.Fatalf("envelope\n got %s\nwant %s", got, want)
		}
	})
	t.Run("PastTheEnd", func(t *testing.T) {
		out := newList[int](nil, 3, PageParams{Page: 9, Limit: 15}, base)
		l := out.Body
		if l.Meta.From != nil || l.Meta.To != nil || l.Links.Next != nil {
			t.Fatalf("from %v to %v next %v, want nulls past the last page", l.Meta.From, l.Meta.To, l.Links.Next)
		}
		if got, want := *l.Links.Prev, base+"?page=1"; got != want {
			t.Fatalf("prev = %s, want the last page %s", got, want)
		}
	})
}

// marshal encodes v as the API does, without escaping & < >.
func marshal(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

func TestPageWindow(t *testing.T) {
	for _, c := range []struct {
		current, last int
		want          []int
	}{
		{1, 1, []int{1}},
		{3, 12, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{1, 50, []int{1, 2, 3, 4, 0, 49, 50}},
		{25, 50, []int{1, 2, 0, 22, 23, 24, 25, 26, 27, 28, 0, 49, 50}},
		{50, 50, []int{1, 2, 0, 47, 48, 49, 50}},
		{5, 50, []int{1, 2, 3, 4, 5, 6, 7, 8, 0, 49, 50}},
	} {
		t.Run(fmt.Sprintf("%d-of-%d", c.current, c.last), func(t *testing.T) {
			if got := pageWindow(c.current, c.last); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("pageWindow = %v, want %v", got, c.want)
			}
		})
	}
}
