package apidocs

import (
	"sort"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

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
