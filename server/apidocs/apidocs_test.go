package apidocs

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// Mood is nested two levels deep in the list response.
type Mood struct {
	Label     string `json:"label" enum:"calm,tense,tired" doc:"How it felt."`
	Intensity int    `json:"intensity" minimum:"0" maximum:"10" doc:"From 0 to 10."`
}

// Entry is a journal entry.
type Entry struct {
	ID    string   `json:"id" doc:"The entry's ID."`
	Text  string   `json:"text" minLength:"1" maxLength:"5000" doc:"What was written."`
	Mood  *Mood    `json:"mood,omitempty" doc:"The mood, if any."`
	Tags  []string `json:"tags" doc:"Tags, in order."`
	Reply *Entry   `json:"reply,omitempty" doc:"A reply, which is an entry too."`
}

type listInput struct {
	Limit int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Items per page."`
	Order string `query:"order" enum:"asc,desc" default:"desc" doc:"Sort <order>."`
}

type listOutput struct {
	Body struct {
		Data []Entry `json:"data"`
	}
}

type getInput struct {
	ID string `path:"id" pattern:"^[a-z0-9]+$" doc:"The entry's ID."`
}

type getOutput struct {
	Body Entry
}

type createInput struct {
	Body struct {
		Text string `json:"text" minLength:"1" maxLength:"5000"`
	}
}

type healthOutput struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

// testAPI builds a small API like Recur's: a bearer scheme with scopes,
// tagged and untagged operations, path and query parameters.
func testAPI(t *testing.T) huma.API {
	t.Helper()
	config := huma.DefaultConfig("Journal <Test> API", "1.2.3")
	config.CreateHooks = nil
	config.Info.Description = "First paragraph, with `code`.\n\nSecond paragraph <script>alert(1)</script>."
	config.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "A personal access token.\n\n| scope | grants |\n|---|---|\n| `entries:read` | Read entries. |\n"},
	}
	api := humago.NewWithPrefix(http.NewServeMux(), "/api", config)

	huma.Register(api, huma.Operation{
		OperationID: "list-entries", Method: http.MethodGet, Path: "/entries", Tags: []string{"Entries"},
		Summary: "List entries", Security: []map[string][]string{{"bearer": {"entries:read"}}},
	}, func(context.Context, *listInput) (*listOutput, error) { return nil, nil })
	huma.Register(api, huma.Operation{
		OperationID: "create-entry", Method: http.MethodPost, Path: "/entries", Tags: []string{"Entries"},
		Summary: "Write an entry", Security: []map[string][]string{{"bearer": {"entries:write"}}},
		DefaultStatus: http.StatusCreated,
	}, func(context.Context, *createInput) (*getOutput, error) { return nil, nil })
	huma.Register(api, huma.Operation{
		OperationID: "get-entry", Method: http.MethodGet, Path: "/entries/{id}", Tags: []string{"Entries"},
		Summary: "Show an entry", Security: []map[string][]string{{"bearer": {"entries:read"}}},
		Errors: []int{http.StatusNotFound},
	}, func(context.Context, *getInput) (*getOutput, error) { return nil, nil })
	huma.Register(api, huma.Operation{
		OperationID: "health", Method: http.MethodGet, Path: "/health", Summary: "Check health",
	}, func(context.Context, *struct{}) (*healthOutput, error) { return nil, nil })
	return api
}

func render(t *testing.T) string {
	t.Helper()
	page, err := Render(testAPI(t).OpenAPI())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return string(page)
}

func TestRenderContents(t *testing.T) {
	page := render(t)
	for _, s := range []string{
		"<!DOCTYPE html>",
		"Journal &lt;Test&gt; API",
		"Version 1.2.3",
		"<code>/api</code>",
		"<p>First paragraph, with <code>code</code>.</p>",
		// Operations, their anchors and the sidebar links to them.
		`<code class="path">/entries</code>`,
		`<code class="path">/entries/{id}</code>`,
		`<code class="path">/health</code>`,
		`id="list-entries"`, `href="#list-entries"`,
		`id="get-entry"`, `href="#get-entry"`,
		"List entries", "Show an entry",
		// Parameters and their constraints.
		`<code class="name">limit</code>`, `<code class="name">order</code>`, `<code class="name">id</code>`,
		"minimum: 1", "maximum: 100", "default: 20",
		`enum: &#34;asc&#34;, &#34;desc&#34;`,
		"pattern: ^[a-z0-9]&#43;$", // html/template escapes +
		"Sort &lt;order&gt;.",
		// Request and response schemas, nested fields included.
		`<code class="name">text</code>`, "minLength: 1", "maxLength: 5000",
		`<code class="name">intensity</code>`, "maximum: 10",
		`<code class="name">tags</code>`, "array of string",
		`<span class="type">Mood</span>`,
		"Recursive: the fields of <span class=\"type\">Entry</span>",
		`<span class="status s2xx">201</span>`,
		`<span class="status s4xx">404</span>`,
		// Security.
		`<code class="scope">entries:read</code>`, `<code class="scope">entries:write</code>`,
		`<th>scope</th>`, `<td><code>entries:read</code></td>`,
		"No authentication",
		">Other</a>",
	} {
		if got, want := strings.Contains(page, s), true; got != want {
			t.Errorf("page contains %q: got %v, want %v", s, got, want)
		}
	}
}

func TestRenderEscapes(t *testing.T) {
	page := render(t)
	if got, want := strings.Contains(page, "<script>alert(1)</script>"), false; got != want {
		t.Errorf("page contains the raw <script> of the description: got %v, want %v", got, want)
	}
	if got, want := strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), true; got != want {
		t.Errorf("page contains the escaped <script>: got %v, want %v", got, want)
	}
}

func TestRenderSelfContained(t *testing.T) {
	page := render(t)
	for _, bad := range []string{"http://", "https://", "<script", "<style", "style=", "@import", "url(", "<iframe", "<img"} {
		if got, want := strings.Contains(page, bad), false; got != want {
			t.Errorf("page contains %q: got %v, want %v", bad, got, want)
		}
	}
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*"?\s*(https?:)?//`)
	if got, want := external.FindString(page), ""; got != want {
		t.Errorf("external reference: got %q, want none", got)
	}
	// The one stylesheet is a file beside the page, so a CSP of
	// style-src 'self' holds.
	if got, want := strings.Count(page, "<link"), 1; got != want {
		t.Errorf("<link> elements: got %d, want %d", got, want)
	}
	if want := `<link rel="stylesheet" href="` + StylesheetName + `">`; !strings.Contains(page, want) {
		t.Errorf("page does not load its stylesheet with %s", want)
	}
	if !bytes.Contains(Stylesheet, []byte("{")) {
		t.Error("Stylesheet is empty")
	}
}

func TestRenderOrder(t *testing.T) {
	page := render(t)
	// Tags in order of first appearance over sorted paths, untagged last;
	// within a path GET before POST.
	order := []string{`id="tag-Entries"`, `id="list-entries"`, `id="create-entry"`, `id="get-entry"`, `id="tag-Other"`, `id="health"`}
	last := -1
	for _, s := range order {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("page lacks %q", s)
		}
		if got, want := i > last, true; got != want {
			t.Errorf("%q comes after the previous item: got %v, want %v", s, got, want)
		}
		last = i
	}
}

func TestRenderDeterministic(t *testing.T) {
	api := testAPI(t)
	first, err := Render(api.OpenAPI())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for range 5 {
		again, err := Render(api.OpenAPI())
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if got, want := bytes.Equal(again, first), true; got != want {
			t.Fatalf("same document, same bytes: got %v, want %v", got, want)
		}
	}
}

func TestRenderMinimal(t *testing.T) {
	if _, err := Render(nil); err == nil {
		t.Errorf("Render(nil): got no error, want one")
	}
	page, err := Render(&huma.OpenAPI{})
	if err != nil {
		t.Fatalf("Render of an empty document: %v", err)
	}
	if got, want := strings.Contains(string(page), "<h1>API reference</h1>"), true; got != want {
		t.Errorf("empty document has the default title: got %v, want %v", got, want)
	}
}

func TestRenderUnresolvedAndDeep(t *testing.T) {
	// A chain of inline objects deeper than maxDepth, and a $ref the
	// document has no registry for.
	leaf := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{"end": {Type: huma.TypeString}}}
	s := leaf
	for range maxDepth + 2 {
		s = &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{"next": s}}
	}
	s.Properties["other"] = &huma.Schema{Ref: "#/components/schemas/Missing"}
	doc := &huma.OpenAPI{Paths: map[string]*huma.PathItem{"/deep": {Get: &huma.Operation{
		OperationID: "deep",
		Responses:   map[string]*huma.Response{"200": {Description: "OK", Content: map[string]*huma.MediaType{"application/json": {Schema: s}}}},
	}}}}
	page, err := Render(doc)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for _, text := range []string{"Nested too deeply to list here.", `<span class="type">Missing</span>`} {
		if got, want := strings.Contains(string(page), text), true; got != want {
			t.Errorf("page contains %q: got %v, want %v", text, got, want)
		}
	}
}

func TestBlocks(t *testing.T) {
	bs := blocks("One `a|b` line\nnext line\n\n\n| k | v |\n|---|:-:|\n| `x` | y |\n\nodd ` tick")
	if got, want := len(bs), 3; got != want {
		t.Fatalf("blocks: got %d, want %d", got, want)
	}
	if got, want := len(bs[0].Lines), 2; got != want {
		t.Errorf("lines of the first paragraph: got %d, want %d", got, want)
	}
	if got, want := bs[0].Lines[0][1], (span{Text: "a|b", Code: true}); got != want {
		t.Errorf("code span: got %+v, want %+v", got, want)
	}
	if got, want := len(bs[1].Head), 2; got != want {
		t.Errorf("table head cells: got %d, want %d", got, want)
	}
	if got, want := bs[1].Rows[0][0][0], (span{Text: "x", Code: true}); got != want {
		t.Errorf("table cell: got %+v, want %+v", got, want)
	}
	if got, want := bs[2].Lines[0][0], (span{Text: "odd ` tick"}); got != want {
		t.Errorf("unpaired backtick: got %+v, want %+v", got, want)
	}
}
