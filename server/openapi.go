package server

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// tags describe the groups of operations, in the order the reference shows them.
var tags = []*huma.Tag{
	{Name: "Captures", Description: "Journal entries: writing, reading, deleting, importing and analysing them again."},
	{Name: "Patterns", Description: "What keeps coming back: patterns, their correlations and flows, the timeline and the feature locks."},
	{Name: "Settings", Description: "The user's settings, such as the timezone."},
	{Name: "Account", Description: "The signed-in user, feedback and the export of everything."},
	{Name: "Sign-in", Description: "Signing in by password or mailed link or code, confirming a session and verifying the address."},
	{Name: "Two-factor", Description: "Turning two-factor authentication on and off, and its recovery codes."},
	{Name: "Apps", Description: "Apps registered by the user, each with its own token and scopes."},
	{Name: "Devices", Description: "Push tokens of the user's devices."},
	webhooksTag,
	channelsTag,
	pushTag,
	{Name: "Health", Description: "Whether Recur and its parts work; open to everyone."},
}

// errorDescriptions say when each error status is answered.
var errorDescriptions = map[int]string{
	http.StatusBadRequest:            "The request cannot be served on this kind of credential.",
	http.StatusUnauthorized:          "No valid token or session.",
	http.StatusForbidden:             "The token lacks the scope this route needs, or an unsafe request on a session came from another origin.",
	http.StatusNotFound:              "No such record among the user's own.",
	http.StatusRequestEntityTooLarge: "The request body is larger than the limit.",
	http.StatusLocked:                "The session must confirm the password (or a mailed code) first.",
	http.StatusUnprocessableEntity:   "The input is invalid: errors says why, per field.",
	http.StatusTooManyRequests:       "Too many attempts: Retry-After says how many seconds to wait.",
	http.StatusInternalServerError:   "Something failed on the server; the log has the details under the request id.",
	http.StatusServiceUnavailable:    "The database does not answer.",
	http.StatusInsufficientStorage:   "The server's disk is full, so nothing was saved (of an upload, nothing is kept): message says so. The health check reports degraded until a write succeeds again.",
}

// completeDocument adds to every operation what holds for all routes alike,
// so that no registration can forget it: 413 where a body is taken (the
// limit is enforced by limitBodies), 403 and 507 on unsafe methods (checkOrigin
// refuses cross-origin requests on a session, on open routes too; a write
// finds the disk full), no 422
// where there is no input to fail, security: [] on open routes, and the
// top-level tags, license and contact.
func (s *Server) completeDocument() {
	doc := s.api.OpenAPI()
	doc.Tags = tags
	doc.Info.License = &huma.License{Name: "Apache-2.0", Identifier: "Apache-2.0"}
	doc.Info.Contact = &huma.Contact{Name: "Recur's maintainers, through the project's issue tracker"}
	for _, item := range doc.Paths {
		for _, o := range []*huma.Operation{item.Get, item.Put, item.Post, item.Patch, item.Delete} {
			if o == nil {
				continue
			}
			if o.Security == nil {
				o.Security = []map[string][]string{} // open: written as security: []
			}
			if o.RequestBody != nil {
				addError(o, http.StatusRequestEntityTooLarge)
				if o.RequestBody.Description == "" {
					o.RequestBody.Description = "A JSON object with the fields of the schema; unknown fields are refused."
				}
			}
			if o.Method != http.MethodGet {
				addError(o, http.StatusForbidden)
				addError(o, http.StatusInsufficientStorage)
			}
			if o.RequestBody == nil && len(o.Parameters) == 0 {
				delete(o.Responses, strconv.Itoa(http.StatusUnprocessableEntity))
			}
			for _, p := range o.Parameters {
				if p.In == "query" && (p.Name == "page" || p.Name == "limit") {
					p.AllowEmptyValue = true // ?page= is the first page, ?limit= the default size
				}
				if p.In == "query" && p.Name == "page" {
					// The spec has page nullable: no value is the first page.
					// The document gets a copy; Huma validates with the original.
					schema := *p.Schema
					schema.Nullable = true
					p.Schema = &schema
				}
			}
			for code, r := range o.Responses {
				n, err := strconv.Atoi(code)
				if d, ok := errorDescriptions[n]; ok && err == nil && r.Description == http.StatusText(n) {
					r.Description = d
				}
			}
		}
	}
}

// addError documents an error status on o, in the shape of every error.
func addError(o *huma.Operation, status int) {
	code := strconv.Itoa(status)
	if _, ok := o.Responses[code]; ok {
		return
	}
	var shape *huma.Response
	for _, c := range slices.Sorted(maps.Keys(o.Responses)) {
		if r := o.Responses[c]; len(c) == 3 && c[0] >= '4' && r.Content != nil {
			shape = r
			break
		}
	}
	r := &huma.Response{Description: http.StatusText(status)}
	if shape != nil {
		r.Content = shape.Content
	}
	o.Responses[code] = r
}

// describeParam states in the document a constraint on a parameter that its
// handler checks itself, in its own order or words: the schema Huma
// validates with is left as it is, and the document gets an amended copy.
func (s *Server) describeParam(path, method, name string, amend func(*huma.Schema)) {
	item := s.api.OpenAPI().Paths[path]
	o := map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post}[method]
	for _, p := range o.Parameters {
		if p.Name == name {
			schema := *p.Schema
			amend(&schema)
			p.Schema = &schema
			return
		}
	}
	panic("no parameter " + name + " on " + method + " " + path)
}
