// Package apidocs renders a human-readable HTML reference of an OpenAPI
// document built by Huma. The page is produced entirely on the server and is
// self-contained: the stylesheet is inlined, nothing is fetched from other
// hosts and no JavaScript is needed.
package apidocs

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

//go:embed page.html.tmpl
var pageSource string

//go:embed style.css
var styleSource string

// pageTemplate is parsed once; the template is embedded and covered by the
// tests, so a parse error is a programming error.
var pageTemplate = template.Must(template.New("page").Parse(pageSource))

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
	if err := pageTemplate.Execute(&buf, newBuilder(doc).page()); err != nil {
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
	CSS         template.CSS
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

// opView is one operation.
type opView struct {
	ID          string
	Anchor      string
	Method      string
	MethodClass string
	Path        string
	Summary     string
	Description []block
	Deprecated  bool
	// Auth lists the alternative security requirements; an empty inner
	// slice means the operation may also be called without credentials.
	Auth      [][]schemeUse
	Params    []paramView
	Body      *bodyView
	Responses []responseView
}

// schemeUse is one scheme of a security requirement, with its scopes.
type schemeUse struct {
	Name   string
	Anchor string
	Scopes []string
}

// paramView is a parameter or a response header.
type paramView struct {
	Name        string
	In          string
	Type        string
	Required    bool
	Deprecated  bool
	Constraints []string
	Description []block
}

// bodyView is a request body.
type bodyView struct {
	Required    bool
	ContentType string
	Description []block
	Schema      *schemaView
}

// responseView is one response of an operation.
type responseView struct {
	Status      string
	Class       string
	Description []block
	Headers     []paramView
	ContentType string
	Schema      *schemaView
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
	p := &page{Title: "API reference", CSS: template.CSS(styleSource)}
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

func (b *builder) operation(method, path string, op *huma.Operation) opView {
	id := op.OperationID
	if id == "" {
		id = strings.ToLower(method) + "-" + path
	}
	v := opView{
		ID:          id,
		Anchor:      b.anchors.make(id),
		Method:      method,
		MethodClass: strings.ToLower(method),
		Path:        path,
		Summary:     op.Summary,
		Description: blocks(op.Description),
		Deprecated:  op.Deprecated,
		Auth:        b.auth(op),
		Body:        b.body(op.RequestBody),
	}
	for _, p := range op.Parameters {
		if p = b.param(p); p != nil {
			v.Params = append(v.Params, b.paramView(p))
		}
	}
	codes := sortedKeys(op.Responses)
	sort.SliceStable(codes, func(i, j int) bool { return codes[j] == "default" && codes[i] != "default" })
	for _, code := range codes {
		if r := b.response(op.Responses[code]); r != nil {
			v.Responses = append(v.Responses, b.responseView(code, r))
		}
	}
	return v
}

// auth returns the security requirements of op. An operation without its
// own requirements (nil, not empty) inherits those of the document.
func (b *builder) auth(op *huma.Operation) [][]schemeUse {
	reqs := op.Security
	if reqs == nil {
		reqs = b.doc.Security
	}
	var out [][]schemeUse
	for _, req := range reqs {
		uses := []schemeUse{}
		for _, name := range sortedKeys(req) {
			uses = append(uses, schemeUse{Name: name, Anchor: b.schemeAnchors[name], Scopes: req[name]})
		}
		out = append(out, uses)
	}
	return out
}

// param follows a parameter's $ref into the components, if it has one.
func (b *builder) param(p *huma.Param) *huma.Param {
	for i := 0; p != nil && p.Ref != "" && i < maxRefHops; i++ {
		if b.doc.Components == nil {
			return nil
		}
		p = b.doc.Components.Parameters[refName(p.Ref)]
	}
	return p
}

func (b *builder) paramView(p *huma.Param) paramView {
	v := paramView{Name: p.Name, In: p.In, Required: p.Required, Deprecated: p.Deprecated, Type: b.schemas.label(p.Schema, 0)}
	desc := p.Description
	if _, s := b.schemas.resolve(p.Schema); s != nil {
		v.Constraints = constraints(s)
		if desc == "" {
			desc = s.Description
		}
		v.Deprecated = v.Deprecated || s.Deprecated
	}
	v.Description = blocks(desc)
	return v
}

func (b *builder) body(rb *huma.RequestBody) *bodyView {
	for i := 0; rb != nil && rb.Ref != "" && i < maxRefHops; i++ {
		if b.doc.Components == nil {
			return nil
		}
		rb = b.doc.Components.RequestBodies[refName(rb.Ref)]
	}
	if rb == nil {
		return nil
	}
	ct, mt := pickContent(rb.Content)
	v := &bodyView{Required: rb.Required, ContentType: ct, Description: blocks(rb.Description)}
	if mt != nil && mt.Schema != nil {
		v.Schema = b.schemas.view(mt.Schema, 0, nil)
	}
	return v
}

// response follows a response's $ref into the components, if it has one.
func (b *builder) response(r *huma.Response) *huma.Response {
	for i := 0; r != nil && r.Ref != "" && i < maxRefHops; i++ {
		if b.doc.Components == nil {
			return nil
		}
		r = b.doc.Components.Responses[refName(r.Ref)]
	}
	return r
}

func (b *builder) responseView(code string, r *huma.Response) responseView {
	v := responseView{Status: code, Class: statusClass(code), Description: blocks(r.Description)}
	for _, name := range sortedKeys(r.Headers) {
		if h := b.param(r.Headers[name]); h != nil {
			hv := b.paramView(h)
			hv.Name = name
			v.Headers = append(v.Headers, hv)
		}
	}
	ct, mt := pickContent(r.Content)
	v.ContentType = ct
	if mt != nil && mt.Schema != nil {
		v.Schema = b.schemas.view(mt.Schema, 0, nil)
	}
	return v
}

// pickContent chooses the media type to document: application/json when
// present, else the first JSON-like type, else the first type, by name.
func pickContent(content map[string]*huma.MediaType) (string, *huma.MediaType) {
	if mt, ok := content["application/json"]; ok {
		return "application/json", mt
	}
	keys := sortedKeys(content)
	for _, k := range keys {
		if strings.HasSuffix(k, "json") {
			return k, content[k]
		}
	}
	if len(keys) > 0 {
		return keys[0], content[keys[0]]
	}
	return "", nil
}

// statusClass names the class of a status code for styling: 2xx, 4xx…
func statusClass(code string) string {
	if len(code) == 3 && code[0] >= '1' && code[0] <= '5' {
		return code[:1] + "xx"
	}
	return "other"
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
