package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// fixture reads a file shipped with the importer's tests.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "importer", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// entriesIn counts the entries the importer reads from a fixture.
func entriesIn(t *testing.T, name string) int {
	t.Helper()
	res, err := importer.Read(name, fixture(t, name), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Entries)
}

// upload posts body to path with the content type.
func (h *harness) upload(path, token, contentType string, body []byte) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", contentType)
	return h.send(req, token)
}

// form builds a multipart form with the files in fields named file.
func form(t *testing.T, files map[string][]byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		part, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		part.Write(files[name])
	}
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

// batchOf decodes a job batch answer.
func batchOf(t *testing.T, r response) map[string]any {
	t.Helper()
	data, ok := r.JSON(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data in %s", r.Body)
	}
	return data
}

func captureCount(t *testing.T, s *store.Store, userID string) int {
	t.Helper()
	_, n, err := s.ListCaptures(context.Background(), userID, store.Page{Page: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImport(t *testing.T) {
	h := newHarness(t)
	readOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")

	t.Run("JobBatchShape", func(t *testing.T) {
		r := h.upload("/api/captures/import?filename=jrnl.json", h.tokenA, "application/json", fixture(t, "jrnl.json"))
		if r.Status != http.StatusAccepted {
			t.Fatalf("status = %d\n%s", r.Status, r.Body)
		}
		b := batchOf(t, r)
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"cancelled_at", "created_at", "failed_jobs", "finished_at", "id", "name", "pending_jobs", "processed_jobs", "progress", "total_jobs"}
		if !slices.Equal(keys, want) {
			t.Fatalf("batch fields = %v, want %v", keys, want)
		}
		n := float64(entriesIn(t, "jrnl.json"))
		if b["total_jobs"] != n || b["pending_jobs"] != n || b["progress"] != 0.0 || b["finished_at"] != nil || b["name"] != "Import of jrnl.json (jrnl)" {
			t.Fatalf("batch = %v; want %v pending jobs", b, n)
		}
		if got, want := r.Header.Get("Location"), h.srv.URL+"/api/job-batches/"+b["id"].(string); got != want {
			t.Errorf("Location = %q, want %q", got, want)
		}
		h.run([]scenario{
			{name: "Get", method: "GET", path: "/api/job-batches/" + b["id"].(string), token: h.tokenA, status: 200, contains: []string{`"total_jobs":` + strings.TrimSuffix(strings.TrimSuffix(jsonNumber(n), ".0"), ".")}},
			{name: "OtherUsers", method: "GET", path: "/api/job-batches/" + b["id"].(string), token: h.tokenB, status: 404},
			{name: "Unknown", method: "GET", path: "/api/job-batches/0190f0f0-0000-7000-8000-000000000000", token: h.tokenA, status: 404},
			{name: "NoToken", method: "GET", path: "/api/job-batches/" + b["id"].(string), status: 401},
		})
	})
	t.Run("DuplicateImportAddsNothing", func(t *testing.T) {
		before := captureCount(t, h.store, h.alice.ID)
		r := h.upload("/api/captures/import", h.tokenA, "application/json", fixture(t, "jrnl.json"))
		b := batchOf(t, r)
		if r.Status != 202 || b["total_jobs"] != 0.0 || b["progress"] != 100.0 || b["finished_at"] == nil {
			t.Fatalf("second import = %d %v; want an empty, finished batch", r.Status, b)
		}
		if after := captureCount(t, h.store, h.alice.ID); after != before {
			t.Fatalf("captures %d -> %d after importing the same file again", before, after)
		}
	})
	t.Run("DayOneZip", func(t *testing.T) {
		r := h.upload("/api/captures/import?filename=dayone.zip", h.tokenB, "application/zip", fixture(t, "dayone.zip"))
		if b := batchOf(t, r); r.Status != 202 || b["total_jobs"] != float64(entriesIn(t, "dayone.zip")) {
			t.Fatalf("Day One import = %d %s", r.Status, r.Body)
		}
		list, _, _ := h.store.ListCaptures(context.Background(), h.bob.ID, store.Page{Page: 1, Limit: 100})
		for _, c := range list {
			if c.Origin != store.OriginImport || c.Status != store.StatusQueued {
				t.Errorf("imported capture %+v; want origin import, queued", c)
			}
		}
	})
	t.Run("MarkdownFilesInAForm", func(t *testing.T) {
		files := map[string][]byte{
			"2024-05-01.md": []byte("Walked to work in the rain.\n"),
			"2024-05-02.md": []byte("---\ndate: 2024-05-02 07:30\n---\nSlept badly.\n"),
		}
		ct, body := form(t, files)
		r := h.upload("/api/captures/import", h.tokenB, ct, body)
		if b := batchOf(t, r); r.Status != 202 || b["total_jobs"] != 2.0 || b["name"] != "Import of 2 files (Markdown)" {
			t.Fatalf("form import = %d %s", r.Status, r.Body)
		}
		ct, body = form(t, map[string][]byte{"dayone.zip": fixture(t, "dayone.zip")})
		if r := h.upload("/api/captures/import", h.tokenB, ct, body); r.Status != 202 || batchOf(t, r)["total_jobs"] != 0.0 {
			t.Fatalf("one zip in a form, imported before = %d %s; want nothing new", r.Status, r.Body)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		before := captureCount(t, h.store, h.alice.ID)
		for _, c := range []struct{ name, contentType, mention string }{
			{"dayone-truncated.json", "application/json", "JSON"},
			{"dayone-no-date.json", "application/json", "entry"},
			{"markdown-undated.zip", "application/zip", ".md"},
			{"not-a-journal.json", "application/json", ""},
		} {
			r := h.upload("/api/captures/import?filename="+c.name, h.tokenA, c.contentType, fixture(t, c.name))
			var body struct {
				Errors map[string][]string `json:"errors"`
			}
			json.Unmarshal(r.Body, &body)
			if r.Status != 422 || len(body.Errors["file"]) != 1 || !strings.Contains(body.Errors["file"][0], c.mention) {
				t.Errorf("%s: %d %s; want 422 under file mentioning %q", c.name, r.Status, r.Body, c.mention)
			}
		}
		empty, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/api/captures/import", nil) // no body: breaks the document on purpose
		empty.Header.Set("Content-Type", "application/octet-stream")
		if r := h.send(offDocument(empty), h.tokenA); r.Status != 422 || !bytes.Contains(r.Body, []byte(`"file"`)) {
			t.Errorf("empty upload: %d %s", r.Status, r.Body)
		}
		if after := captureCount(t, h.store, h.alice.ID); after != before {
			t.Fatalf("malformed uploads changed the captures: %d -> %d", before, after)
		}
	})
	t.Run("Scopes", func(t *testing.T) {
		r := h.upload("/api/captures/import", readOnly, "application/json", fixture(t, "jrnl.json"))
		if r.Status != 403 || !bytes.Contains(r.Body, []byte("captures:write")) {
			t.Fatalf("import with a read-only token = %d %s; want 403 naming captures:write", r.Status, r.Body)
		}
		if r := h.upload("/api/captures/import", "", "application/json", fixture(t, "jrnl.json")); r.Status != 401 {
			t.Fatalf("import without a token = %d", r.Status)
		}
	})
}

func jsonNumber(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestImportSizeLimit(t *testing.T) {
	h := newHarness(t, func(o *server.Options) { o.MaxBodyBytes = 1 << 10; o.MaxImportBytes = 4 << 10 })
	small := fixture(t, "jrnl.json")
	if len(small) > 4<<10 || len(small) < 1<<10 {
		t.Skipf("jrnl.json is %d bytes; the test wants between 1 and 4 KiB", len(small))
	}
	if r := h.upload("/api/captures/import", h.tokenA, "application/json", small); r.Status != 202 {
		t.Fatalf("an upload over the general limit but under the import limit = %d %s", r.Status, r.Body)
	}
	big := bytes.Repeat([]byte("x"), 5<<10)
	if r := h.upload("/api/captures/import?filename=big.md", h.tokenA, "text/markdown", big); r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("an upload over the import limit = %d %s; want 413", r.Status, r.Body)
	}
}

func TestReanalyseRoute(t *testing.T) {
	h := newHarness(t)
	for _, text := range []string{"one", "two"} {
		if r := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": text}); r.Status != 201 {
			t.Fatal(string(r.Body))
		}
	}
	readOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read")
	r := h.do("POST", "/api/captures/reanalyse", h.tokenA, nil)
	if b := batchOf(t, r); r.Status != 202 || b["total_jobs"] != 2.0 || b["pending_jobs"] != 2.0 || !strings.HasPrefix(b["name"].(string), "Re-analysis") {
		t.Fatalf("reanalyse = %d %s", r.Status, r.Body)
	}
	h.run([]scenario{
		{name: "OtherUserSeesNone", method: "POST", path: "/api/captures/reanalyse", token: h.tokenB, status: 202, contains: []string{`"total_jobs":0`}},
		{name: "Scope", method: "POST", path: "/api/captures/reanalyse", token: readOnly, status: 403, contains: []string{"captures:write"}},
		{name: "NoToken", method: "POST", path: "/api/captures/reanalyse", status: 401},
	})
}

func TestExportRoute(t *testing.T) {
	h := newHarness(t)
	if r := h.upload("/api/captures/import?filename=jrnl.json", h.tokenA, "application/json", fixture(t, "jrnl.json")); r.Status != 202 {
		t.Fatal(string(r.Body))
	}
	if r := h.do("PUT", "/api/settings/me/timezone", h.tokenA, map[string]string{"value": "Europe/Berlin"}); r.Status != 200 {
		t.Fatal(string(r.Body))
	}
	noExport := storetest.MustCreateToken(t, h.store, h.alice.ID, "captures:read", "captures:write")
	h.run([]scenario{
		{name: "Scope", method: "GET", path: "/api/users/me/export", token: noExport, status: 403, contains: []string{"account:export"}},
		{name: "NoToken", method: "GET", path: "/api/users/me/export", status: 401},
	})
	r := h.do("GET", "/api/users/me/export", h.tokenA, nil)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="recur-export-`) {
		t.Fatalf("export = %d %v", r.Status, r.Header)
	}
	doc := r.JSON(t)
	if doc["format"] != "recur-export" || len(doc["captures"].([]any)) != entriesIn(t, "jrnl.json") || len(doc["settings"].([]any)) != 1 {
		t.Fatalf("export = %s", r.Body)
	}
	if bytes.Contains(r.Body, []byte("bob@example.com")) {
		t.Fatal("alice's export names bob")
	}

	// Bob has no entries: the export comes back whole, as alice's, under
	// new ids as they are taken on this instance.
	up := h.upload("/api/captures/import?filename=export.json", h.tokenB, "application/json", r.Body)
	if up.Status != 202 || !strings.Contains(batchOf(t, up)["name"].(string), "Recur") {
		t.Fatalf("import of the export = %d %s", up.Status, up.Body)
	}
	back := h.do("GET", "/api/users/me/export", h.tokenB, nil).JSON(t)
	for _, k := range []string{"format", "version", "settings", "captures", "segments", "tags", "patterns", "correlations", "flows"} {
		want := doc[k]
		if k == "captures" {
			// Queued captures are queued again, at the time of the import.
			// The other tables are empty: nothing was analysed.
			want, back[k] = stripQueue(doc[k]), stripQueue(back[k])
		}
		if !reflect.DeepEqual(back[k], want) {
			t.Errorf("%s differs after export and import:\n%v\n%v", k, back[k], want)
		}
	}
}

// stripQueue leaves out of captures the columns of their place in the queue.
func stripQueue(v any) any {
	rows := v.([]any)
	out := make([]any, len(rows))
	for i, r := range rows {
		m := map[string]any{}
		for k, val := range r.(map[string]any) {
			if k != "available_at" && k != "background" && k != "id" {
				m[k] = val
			}
		}
		out[i] = m
	}
	return out
}
