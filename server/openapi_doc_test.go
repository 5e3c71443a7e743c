package server_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/recur-journal/recur/server"
)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// concrete fills a documented path's parameters with well-formed values.
func concrete(path string) string {
	return "/api" + pathParam.ReplaceAllStringFunc(path, func(p string) string {
		switch p {
		case "{type}":
			return "patterns"
		case "{key}":
			return "timezone"
		case "{fcmToken}":
			return "some-device"
		}
		return "01900000-0000-7000-8000-000000000000"
	})
}

// TestEveryUnsafeRouteRefusesCrossOrigin sends a cross-site request with no
// credentials to every unsafe route: each refuses it with 403, which the
// document must list for that route.
func TestEveryUnsafeRouteRefusesCrossOrigin(t *testing.T) {
	h := newHarness(t)
	for _, o := range h.check.Operations() {
		if o.Method == http.MethodGet {
			continue
		}
		t.Run(o.Op.OperationID, func(t *testing.T) {
			req := h.request(o.Method, concrete(o.Path), nil)
			if o.Op.RequestBody != nil {
				req = h.request(o.Method, concrete(o.Path), map[string]any{})
			}
			req.Header.Set("Origin", "https://evil.example")
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			res := h.send(offDocument(sentBy(req, t)), "")
			if res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "Cross-origin request refused.") {
				t.Fatalf("%s %s from another site: %d %s", o.Method, o.Path, res.Status, res.Body)
			}
		})
	}
}

// TestEveryBodyIsLimited sends a body over the limit to every route that
// takes one: each answers 413, which the document must list for that route.
func TestEveryBodyIsLimited(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.MaxBodyBytes = 64; o.MaxImportBytes = 64 })
	big := map[string]string{"text": strings.Repeat("a", 200)}
	for _, o := range h.check.Operations() {
		if o.Op.RequestBody == nil {
			continue
		}
		t.Run(o.Op.OperationID, func(t *testing.T) {
			res := h.send(offDocument(sentBy(h.request(o.Method, concrete(o.Path), big), t)), h.tokenA)
			if res.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s %s with a body over the limit: %d %s", o.Method, o.Path, res.Status, res.Body)
			}
		})
	}
}

// TestOpenAPIDocument holds the parts of the document no request shows.
func TestOpenAPIDocument(t *testing.T) {
	h := newHarness(t)
	spec := h.check.Spec
	t.Run("NoValidationErrorWithoutInput", func(t *testing.T) {
		for _, o := range h.check.Operations() {
			if len(o.Op.Parameters) == 0 && o.Op.RequestBody == nil && o.Op.Responses.Value("422") != nil {
				t.Errorf("%s takes no input but lists 422", o.Op.OperationID)
			}
		}
	})
	t.Run("OpenRoutesSaySo", func(t *testing.T) {
		for _, o := range h.check.Operations() {
			if o.Op.Security == nil {
				t.Errorf("%s has no security: an open route says security: []", o.Op.OperationID)
			}
		}
	})
	t.Run("Info", func(t *testing.T) {
		if l := spec.Info.License; l == nil || l.Name != "Apache-2.0" {
			t.Errorf("license = %+v, want Apache-2.0", l)
		}
		if c := spec.Info.Contact; c == nil || c.Name == "" {
			t.Errorf("contact = %+v, want one", c)
		}
	})
	t.Run("Tags", func(t *testing.T) {
		described := map[string]bool{}
		for _, tag := range spec.Tags {
			if tag.Description == "" {
				t.Errorf("tag %s has no description", tag.Name)
			}
			described[tag.Name] = true
		}
		for _, o := range h.check.Operations() {
			for _, tag := range o.Op.Tags {
				if !described[tag] {
					t.Errorf("%s is tagged %s, which the top-level tags lack", o.Op.OperationID, tag)
				}
			}
		}
	})
	t.Run("Parameters", func(t *testing.T) {
		param := func(id, name string) *openapi3.Parameter {
			for _, o := range h.check.Operations() {
				if o.Op.OperationID == id {
					for _, p := range o.Op.Parameters {
						if p.Value.Name == name {
							return p.Value
						}
					}
				}
			}
			t.Fatalf("%s has no parameter %s", id, name)
			return nil
		}
		uuids := map[string]string{"get-capture": "capture", "delete-capture": "capture", "get-app": "app", "update-app": "app",
			"delete-app": "app", "get-job-batch": "jobBatch", "get-pattern": "id", "review-pattern": "id",
			"review-correlation": "correlation", "magic-link-login": "user_uuid", "verify-email": "user_uuid"}
		for id, name := range uuids {
			if got := param(id, name).Schema.Value.Format; got != "uuid" {
				t.Errorf("%s %s: format %q, want uuid", id, name, got)
			}
		}
		for _, name := range []string{"from", "to"} {
			if got := param("get-timeline", name).Schema.Value.Format; got != "date" {
				t.Errorf("get-timeline %s: format %q, want date", name, got)
			}
		}
		for _, link := range []string{"magic-link-login", "verify-email"} {
			for _, name := range []string{"user_uuid", "expires", "signature"} {
				if !param(link, name).Required {
					t.Errorf("%s %s is not required", link, name)
				}
			}
			if s := param(link, "expires").Schema.Value; !s.Type.Is("integer") {
				t.Errorf("%s expires: type %v, want integer", link, s.Type)
			}
		}
		if !param("magic-link-login", "path").Required {
			t.Errorf("magic-link-login path is not required")
		}
		if got := param("magic-link-login", "return_to").Schema.Value.Format; got != "uri" {
			t.Errorf("magic-link-login return_to: format %q, want uri", got)
		}
		me := spec.Components.Schemas["MagicMeInputBody"]
		if me == nil || me.Value.Properties["path"] == nil {
			t.Fatal("make-magic-link's body has no path")
		}
		for where, path := range map[string]*openapi3.Schema{"magic-link-login": param("magic-link-login", "path").Schema.Value,
			"make-magic-link": me.Value.Properties["path"].Value} {
			if path.MaxLength == nil || *path.MaxLength != 255 || path.Pattern == "" {
				t.Errorf("%s path: maxLength %v pattern %q, want 255 and a pattern", where, path.MaxLength, path.Pattern)
				continue
			}
			re := regexp.MustCompile(path.Pattern)
			for p, ok := range map[string]bool{"/": true, "/timeline?x=1": true, "//evil.example": false, `/\evil.example`: false, "timeline": false} {
				if re.MatchString(p) != ok {
					t.Errorf("%s path pattern %s on %q: %v, want %v", where, path.Pattern, p, !ok, ok)
				}
			}
		}
		for _, id := range []string{"list-captures", "list-apps", "list-patterns"} {
			if !param(id, "page").AllowEmptyValue {
				t.Errorf("%s page: an empty page is the first, but the document refuses it", id)
			}

		}
	})
	t.Run("PageIsNullable", func(t *testing.T) {
		// The spec: every list takes page, an integer >= 1, nullable.
		lists := 0
		for _, o := range h.check.Operations() {
			for _, p := range o.Op.Parameters {
				if p.Value.Name != "page" {
					continue
				}
				lists++
				s := p.Value.Schema.Value
				if s.Type == nil || !s.Type.Includes("integer") || !(s.Type.Includes("null") || s.Nullable) {
					t.Errorf("%s page: type %v, want a nullable integer", o.Op.OperationID, s.Type)
				}
				if s.Min == nil || *s.Min != 1 {
					t.Errorf("%s page: minimum %v, want 1", o.Op.OperationID, s.Min)
				}
			}
		}
		if lists < 5 {
			t.Errorf("%d operations take page, want every list (captures, patterns, apps, sessions, tokens)", lists)
		}
	})
	t.Run("ErrorsSayWhen", func(t *testing.T) {
		for _, o := range h.check.Operations() {
			for code, r := range o.Op.Responses.Map() {
				n, _ := strconv.Atoi(code)
				if n >= 400 && r.Value.Description != nil && *r.Value.Description == http.StatusText(n) {
					t.Errorf("%s %s: the description only names the status", o.Op.OperationID, code)
				}
			}
		}
	})
}
