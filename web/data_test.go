package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

// upload posts files (name to content) as the data page's form does.
func (b *browser) upload(files map[string]string) answer {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for name, content := range files {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write([]byte(content))
	}
	mw.Close()
	req, _ := http.NewRequest("POST", b.h.srv.URL+"/settings/data/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.h.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.send(req)
}

func TestData(t *testing.T) {
	h := newHarness(t, nil)
	alice, bob := h.signIn(h.alice), h.signIn(h.bob)

	t.Run("PageWithoutScript", func(t *testing.T) {
		has(t, "GET /settings/data", alice.get("/settings/data"), 200, `enctype="multipart/form-data"`, `action="/settings/data/import"`,
			`href="/api/users/me/export"`, `href="/api/users/me/export/markdown"`)
	})
	var location string
	t.Run("ImportFollowsBatch", func(t *testing.T) {
		a := alice.upload(map[string]string{
			"one.md": "---\ndate: 2026-03-01 09:00\n---\nThe first day.\n",
			"two.md": "---\ndate: 2026-03-02 09:00\n---\nThe second day.\n",
		})
		if a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/settings/data?batch=") {
			t.Fatalf("import = %d to %q, want 303 to the batch\n%s", a.status, a.location, a.body)
		}
		location = a.location
		list, _, _ := h.store.ListCaptures(context.Background(), h.alice.ID, store.Page{Page: 1, Limit: 10})
		if len(list) != 2 {
			t.Fatalf("%d captures imported, want 2", len(list))
		}
		has(t, "GET batch", alice.get(location), 200, `<progress max="100" value="0"`, "0 of 2 entries read, 2 waiting", "Refresh")
	})
	t.Run("AnotherUsersBatchIs404", func(t *testing.T) {
		has(t, "bob", bob.get(location), 404, "Not found")
		has(t, "unknown", alice.get("/settings/data?batch=01a20000-0000-7000-8000-000000000000"), 404, "Not found")
	})
	t.Run("UnreadableIs422WithSentence", func(t *testing.T) {
		a := alice.upload(map[string]string{"notes.json": "{not json"})
		has(t, "bad file", a, 422, `aria-invalid="true"`, `role="alert"`, "notes.json")
		has(t, "no file", alice.upload(nil), 422, "The form holds no file")
	})
	t.Run("CrossOriginRefused", func(t *testing.T) {
		req, _ := http.NewRequest("POST", h.srv.URL+"/settings/data/import", strings.NewReader("x"))
		req.Header.Set("Origin", "http://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if a := alice.send(req); a.status != http.StatusForbidden {
			t.Errorf("a cross-site import = %d, want 403", a.status)
		}
	})
}
