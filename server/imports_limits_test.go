package server_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/store/storetest"
)

// bomb is a zip holding one Markdown file of n bytes of spaces.
func bomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("2024-01-05.md")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < n>>20; i++ {
		w.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileErrors decodes the sentences of a 422 under file.
func fileErrors(t *testing.T, r response) []string {
	t.Helper()
	var body struct {
		Errors map[string][]string `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	return body.Errors["file"]
}

func TestImportZipBomb(t *testing.T) {
	h := newHarness(t)
	data := bomb(t, 256<<20)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := h.upload("/api/captures/import?filename=bomb.zip", h.tokenA, "application/zip", data)
	runtime.ReadMemStats(&after)
	errs := fileErrors(t, r)
	if r.Status != http.StatusUnprocessableEntity || len(errs) != 1 ||
		!strings.Contains(errs[0], "2024-01-05.md") || !strings.Contains(errs[0], "4 MiB") {
		t.Fatalf("bomb = %d %s; want 422 under file naming the file and the 4 MiB limit", r.Status, r.Body)
	}
	// Unpacking the file whole took gigabytes; the file's cap and a read
	// buffer are what is left.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<20); got > limit {
		t.Fatalf("rejecting the bomb allocated %d MiB, over %d MiB", got>>20, limit>>20)
	}
}

func TestImportFileCaps(t *testing.T) {
	h := newHarness(t)
	big := strings.Repeat("Words and more words.\n", importer.MaxMarkdownBytes/20)
	ct, body := form(t, map[string][]byte{"2024-01-05.md": []byte(big)})
	r := h.upload("/api/captures/import", h.tokenA, ct, body)
	if errs := fileErrors(t, r); r.Status != 422 || len(errs) != 1 || !strings.Contains(errs[0], "2024-01-05.md: larger than 4 MiB") {
		t.Fatalf("a Markdown file over its cap in a form = %d %s", r.Status, r.Body)
	}
	entry := `{"creationDate": "2024-01-01T00:00:00Z", "text": "` + strings.Repeat("a", importer.MaxEntryBytes+1<<17) + `"}`
	journal := []byte(`{"metadata": {}, "entries": [{"creationDate": "2024-01-01T00:00:00Z", "text": "fine"}, ` + entry + `]}`)
	r = h.upload("/api/captures/import?filename=Journal.json", h.tokenA, "application/json", journal)
	if errs := fileErrors(t, r); r.Status != 422 || len(errs) != 1 || !strings.Contains(errs[0], "Journal.json, entry 2: the entry is larger than 4 MiB") {
		t.Fatalf("a Day One entry over its cap = %d %s", r.Status, r.Body)
	}
}

// pendingUpload is an import whose body is sent only as far as the
// preamble of its multipart form: the server holds the import's slot until
// the rest comes.
type pendingUpload struct {
	w    *io.PipeWriter
	form []byte
	done chan int
}

func startUpload(t *testing.T, h *harness, token string) *pendingUpload {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/api/captures/import", pr)
	if err != nil {
		t.Fatal(err)
	}
	ct, form := form(t, map[string][]byte{"jrnl.json": fixture(t, "jrnl.json")})
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ct)
	p := &pendingUpload{w: pw, form: form, done: make(chan int, 1)}
	// A test that fails early must not leave the server waiting for it.
	t.Cleanup(func() { pw.CloseWithError(io.ErrUnexpectedEOF) })
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			p.done <- 0
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		p.done <- res.StatusCode
	}()
	// A multipart preamble is text the form ignores. 32 MiB of it is more
	// than the socket buffers on the way hold, so the writes return only
	// once the server has read some of it: it holds its slot by then.
	line := bytes.Repeat([]byte("preamble\r\n"), 1<<17)
	for n := 0; n < 32<<20; n += len(line) {
		if _, err := pw.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// finish sends the form and returns the status of the answer.
func (p *pendingUpload) finish(t *testing.T) int {
	t.Helper()
	p.w.Write(p.form)
	p.w.Close()
	return <-p.done
}

func TestImportConcurrency(t *testing.T) {
	h := newHarness(t)
	carol := storetest.MustCreateUser(t, h.store, "carol@example.com")
	tokenC := storetest.MustCreateToken(t, h.store, carol.ID)

	first := startUpload(t, h, h.tokenA)
	r := h.upload("/api/captures/import", h.tokenA, "application/json", fixture(t, "jrnl.json"))
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !bytes.Contains(r.Body, []byte("An import of yours")) {
		t.Fatalf("a second import of one account = %d %v %s; want 429 with Retry-After saying why", r.Status, r.Header, r.Body)
	}
	second := startUpload(t, h, h.tokenB)
	r = h.upload("/api/captures/import", tokenC, "application/json", fixture(t, "jrnl.json"))
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !bytes.Contains(r.Body, []byte("2 imports already")) {
		t.Fatalf("a third import at once = %d %v %s; want 429 with Retry-After saying why", r.Status, r.Header, r.Body)
	}
	if got := first.finish(t); got != http.StatusAccepted {
		t.Fatalf("the first import = %d", got)
	}
	if got := second.finish(t); got != http.StatusAccepted {
		t.Fatalf("the second import = %d", got)
	}
	// Both slots are free again.
	if r := h.upload("/api/captures/import", tokenC, "application/json", fixture(t, "jrnl.json")); r.Status != http.StatusAccepted {
		t.Fatalf("an import after the others ended = %d %s", r.Status, r.Body)
	}
}
