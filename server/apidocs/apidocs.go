// Package apidocs renders a human-readable HTML reference of an OpenAPI
// document built by Huma. The page is produced entirely on the server: it
// needs no JavaScript, fetches nothing from other hosts, and carries no
// inline style, so a Content-Security-Policy of style-src 'self' holds. Its
// one stylesheet, Stylesheet, must be served beside the page as
// StylesheetName.
package apidocs

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
)

//go:embed page.html.tmpl
var pageSource string

// Stylesheet is the page's CSS. The page links it by the relative name
// StylesheetName, so serve it from the folder that serves the page.
//
//go:embed style.css
var Stylesheet []byte

// StylesheetName is the file name the page loads its stylesheet from.
const StylesheetName = "style.css"

// pageTemplate is parsed once, when the page is first asked for, not at
// every start; the template is embedded and covered by the tests, so a
// parse error is a programming error.
var pageTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Parse(pageSource)) })

// untagged is the group of operations that have no tag.
const untagged = "Other"

// Render returns a complete HTML page documenting doc.
//
// The output depends only on doc: maps are walked in sorted order, so the
// same document always gives the same bytes.
func Render(doc *huma.OpenAPI) ([]byte, error) {
	if doc == nil {
		return nil, errors.New("apidocs: nil OpenAPI document")
	}
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, newBuilder(doc).page()); err != nil {
		return nil, fmt.Errorf("apidocs: render: %w", err)
	}
	return buf.Bytes(), nil
}

// page is the data the template renders.
type page struct {
	Title       string
	Version     string
	ServerURL   string
	Description []block
	Schemes     []schemeView
	Groups      []*groupView
	Stylesheet  string
}

// schemeView is a security scheme of the components.
type schemeView struct {
	Name        string
	Anchor      string
	Kind        string
	Description []block
}

// groupView holds the operations that share a first tag.
type groupView struct {
	Name        string
	Anchor      string
	Description []block
	Ops         []opView
}

// methods lists the HTTP methods in the order operations of a path appear.
var methods = []struct {
	name string
	get  func(*huma.PathItem) *huma.Operation
}{
	{"GET", func(p *huma.PathItem) *huma.Operation { return p.Get }},
	{"POST", func(p *huma.PathItem) *huma.Operation { return p.Post }},
	{"PUT", func(p *huma.PathItem) *huma.Operation { return p.Put }},
	{"PATCH", func(p *huma.PathItem) *huma.Operation { return p.Patch }},
	{"DELETE", func(p *huma.PathItem) *huma.Operation { return p.Delete }},
	{"HEAD", func(p *huma.PathItem) *huma.Operation { return p.Head }},
	{"OPTIONS", func(p *huma.PathItem) *huma.Operation { return p.Options }},
	{"TRACE", func(p *huma.PathItem) *huma.Operation { return p.Trace }},
}

// builder turns the OpenAPI document into the page data.
type builder struct {
	doc     *huma.OpenAPI
	schemas schemaWalker
	anchors anchors
	// schemeAnchors maps a security scheme's name to its anchor.
	schemeAnchors map[string]string
}

func newBuilder(doc *huma.OpenAPI) *builder {
	b := &builder{doc: doc, anchors: newAnchors(), schemeAnchors: map[string]string{}}
	if doc.Components != nil {
		b.schemas.reg = doc.Components.Schemas
	}
	return b
}

func (b *builder) page() *page {
	p := &page{Title: "API reference", Stylesheet: StylesheetName}
	if info := b.doc.Info; info != nil {
		if info.Title != "" {
			p.Title = info.Title
		}
		p.Version = info.Version
		p.Description = blocks(info.Description)
	}
	if len(b.doc.Servers) > 0 && b.doc.Servers[0] != nil {
		p.ServerURL = b.doc.Servers[0].URL
	}
	p.Schemes = b.securitySchemes()
	p.Groups = b.groups()
	return p
}

func (b *builder) securitySchemes() []schemeView {
	if b.doc.Components == nil {
		return nil
	}
	var out []schemeView
	for _, name := range sortedKeys(b.doc.Components.SecuritySchemes) {
		s := b.doc.Components.SecuritySchemes[name]
		if s == nil {
			continue
		}
		v := schemeView{Name: name, Anchor: b.anchors.make("scheme-" + name), Kind: schemeKind(s), Description: blocks(s.Description)}
		b.schemeAnchors[name] = v.Anchor
		out = append(out, v)
	}
	return out
}

// schemeKind describes how a security scheme sends its credentials.
func schemeKind(s *huma.SecurityScheme) string {
	switch s.Type {
	case "http":
		k := "HTTP " + s.Scheme
		if s.BearerFormat != "" {
			k += " (" + s.BearerFormat + ")"
		}
		return k
	case "apiKey":
		return "API key in the " + s.In + " " + s.Name
	case "oauth2":
		return "OAuth 2.0"
	case "openIdConnect":
		return "OpenID Connect"
	}
	return s.Type
}

// groups walks the paths in alphabetical order and the methods of each in
// the order of methods, grouping operations by their first tag in order of
// first appearance. Untagged operations come last, under untagged.
func (b *builder) groups() []*groupView {
	var groups []*groupView
	byTag := map[string]*groupView{}
	var other *groupView
	for _, path := range sortedKeys(b.doc.Paths) {
		item := b.doc.Paths[path]
		if item == nil {
			continue
		}
		for _, m := range methods {
			op := m.get(item)
			if op == nil {
				continue
			}
			var g *groupView
			if len(op.Tags) == 0 {
				if other == nil {
					other = &groupView{Name: untagged}
				}
				g = other
			} else if g = byTag[op.Tags[0]]; g == nil {
				g = &groupView{Name: op.Tags[0], Anchor: b.anchors.make("tag-" + op.Tags[0]), Description: b.tagDescription(op.Tags[0])}
				byTag[op.Tags[0]] = g
				groups = append(groups, g)
			}
			g.Ops = append(g.Ops, b.operation(m.name, path, op))
		}
	}
	if other != nil {
		other.Anchor = b.anchors.make("tag-" + untagged)
		groups = append(groups, other)
	}
	return groups
}

func (b *builder) tagDescription(name string) []block {
	for _, t := range b.doc.Tags {
		if t != nil && t.Name == name {
			return blocks(t.Description)
		}
	}
	return nil
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// anchors hands out unique, URL-safe element ids.
type anchors map[string]bool

func newAnchors() anchors {
	return anchors{"top": true, "overview": true, "authentication": true, "operations": true}
}

// make returns an id made from base, suffixed with a number if taken.
func (a anchors) make(base string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, base)
	if s == "" {
		s = "section"
	}
	id := s
	for i := 2; a[id]; i++ {
		id = fmt.Sprintf("%s-%d", s, i)
	}
	a[id] = true
	return id
}
