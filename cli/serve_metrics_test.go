package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/backup"
	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/metrics"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// scrape is one answer of GET /metrics: each series ("name{labels}") with
// its value.
type scrape map[string]float64

// getMetrics asks url for the metrics with the client and the bearer token
// (none when empty).
func getMetrics(t *testing.T, client *http.Client, url, token string) (*http.Response, scrape, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	series := scrape{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			series[line[:i]] = v
		}
	}
	return res, series, string(b)
}

// sum adds the series of family whose labels contain every one of labels,
// and says whether there was any.
func (s scrape) sum(family string, labels ...string) (float64, bool) {
	total, found := 0.0, false
next:
	for name, v := range s {
		base, lbls, _ := strings.Cut(name, "{")
		if base != family {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(lbls, l) {
				continue next
			}
		}
		total, found = total+v, true
	}
	return total, found
}

// TestMetricsEndpoint scrapes a serving instance after some activity: every
// family is there with values that match what happened, only a token that
// carries metrics:read by name reads them, and the [metrics] addr listener serves without one.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, fake, base := startServer(t, dir, "RECUR_METRICS_ADDR=127.0.0.1:0")
	root := strings.TrimSuffix(base, "/api")
	client, capture := analysedCapture(t, dir, base)
	if status, _ := client.Do("GET", "/captures/"+capture["id"].(string), ""); status != 200 {
		t.Fatalf("GET the capture = %d", status)
	}
	if status, _ := client.Do("POST", "/magic-links/mails", `{"email":"me@example.com"}`); status != 204 {
		t.Fatalf("POST /magic-links/mails = %d", status)
	}
	reader, _, err := run(t, dir, "", "token", "create", "me@example.com", "--scopes", "metrics:read")
	if err != nil {
		t.Fatal(err)
	}
	reader = strings.TrimSpace(reader)

	// The sign-in mail goes out in the background, and detection runs a
	// moment after the capture is analysed: wait for both, a few seconds at
	// most.
	var res *http.Response
	var got scrape
	var body string
	wait.Poll(5*time.Second, func() bool {
		res, got, body = getMetrics(t, http.DefaultClient, root+"/metrics", reader)
		sent, _ := got.sum("recur_mail_sent_total")
		detected, _ := got.sum("recur_detection_runs_total", `result="ok"`)
		return sent >= 1 && detected >= 1
	})
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics with metrics:read = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("GET /metrics: X-Content-Type-Options = %q, want the security headers", got)
	}

	stats := fake.Stats()
	for _, c := range []struct {
		family string
		labels []string
		want   float64 // -1: present, any value
		min    float64
	}{
		{family: "recur_captures", labels: []string{`status="processed"`}, want: 1},
		{family: "recur_captures", labels: []string{`status="failed"`}, want: 0},
		{family: "recur_queue_depth", want: 0},
		{family: "recur_queue_oldest_age_seconds", want: 0},
		{family: "recur_model_calls_total", labels: []string{`result="ok"`}, want: float64(stats.ChatCalls + stats.EmbedCalls)},
		{family: "recur_model_call_duration_seconds_count", want: float64(stats.ChatCalls + stats.EmbedCalls)},
		{family: "recur_model_prompt_tokens_total", want: float64(stats.PromptTokens)},
		{family: "recur_model_output_tokens_total", want: float64(stats.OutputTokens)},
		{family: "recur_http_requests_total", labels: []string{`route="POST /api/captures"`, `code="201"`}, want: 1},
		{family: "recur_http_requests_total", labels: []string{`route="GET /api/captures/{capture}"`, `code="200"`}, want: -1, min: 2},
		{family: "recur_http_request_duration_seconds_count", labels: []string{`route="POST /api/captures"`}, want: 1},
		{family: "recur_detection_runs_total", labels: []string{`result="ok"`}, want: -1, min: 1},
		{family: "recur_detection_duration_seconds_count", want: -1, min: 1},
		{family: "recur_mail_sent_total", want: 1},
		{family: "recur_mail_failed_total", want: 0},
		{family: "go_goroutines", want: -1, min: 1},
		{family: "recur_build_info", labels: []string{`version="` + NewMain().readBuild().Version + `"`, `goversion="go`}, want: 1},
	} {
		v, ok := got.sum(c.family, c.labels...)
		switch {
		case !ok:
			t.Errorf("%s%v is missing", c.family, c.labels)
		case c.want >= 0 && v != c.want:
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, v, c.want)
		case c.want < 0 && v < c.min:
			t.Errorf("%s%v = %v, want at least %v", c.family, c.labels, v, c.min)
		}
	}
	if stats.ChatCalls == 0 || stats.PromptTokens == 0 {
		t.Errorf("the capture made no model calls (%+v); the model metrics prove nothing", stats)
	}
	if runtime.GOOS == "linux" {
		if _, ok := got.sum("process_resident_memory_bytes"); !ok {
			t.Error("the process collector's metrics are missing")
		}
	}
	if id := capture["id"].(string); strings.Contains(body, id) {
		t.Errorf("a raw path (the capture's id) is a label: routes must be patterns")
	}

	t.Run("ErrScope", func(t *testing.T) {
		other, _, err := run(t, dir, "", "token", "create", "me@example.com", "--scopes", "captures:read")
		if err != nil {
			t.Fatal(err)
		}
		res, _, body := getMetrics(t, http.DefaultClient, root+"/metrics", strings.TrimSpace(other))
		if res.StatusCode != 403 || !strings.Contains(body, "metrics:read") {
			t.Errorf("GET /metrics with captures:read = %d %s, want 403 naming metrics:read", res.StatusCode, body)
		}
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		if res, _, body := getMetrics(t, http.DefaultClient, root+"/metrics", ""); res.StatusCode != 401 {
			t.Errorf("GET /metrics without credentials = %d %s, want 401", res.StatusCode, body)
		}
	})
	// The metrics are the whole server's: a user's session and a token
	// with every scope (as signing in makes) are no way to them.
	t.Run("ErrSession", func(t *testing.T) {
		if _, _, err := run(t, dir, "a long password\n", "user", "add", "other@example.com", "--password-stdin"); err != nil {
			t.Fatal(err)
		}
		session := signIn(t, base, "other@example.com", "a long password")
		if res, _, body := getMetrics(t, session.HTTP, root+"/metrics", ""); res.StatusCode != 403 || !strings.Contains(body, "recur token create") {
			t.Errorf("GET /metrics on a session = %d %s, want 403 saying how the owner reads them", res.StatusCode, body)
		}
	})
	t.Run("ErrEveryScope", func(t *testing.T) {
		every, _, err := run(t, dir, "", "token", "create", "me@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if res, _, body := getMetrics(t, http.DefaultClient, root+"/metrics", strings.TrimSpace(every)); res.StatusCode != 403 {
			t.Errorf("GET /metrics with a * token = %d %s, want 403: * does not stand for metrics:read", res.StatusCode, body)
		}
	})
	t.Run("OpenListener", func(t *testing.T) {
		addr := m.MetricsAddr()
		if addr == "" {
			t.Fatal("[metrics] addr is set, but nothing listens")
		}
		res, got, _ := getMetrics(t, http.DefaultClient, "http://"+addr+"/metrics", "")
		if _, ok := got.sum("recur_captures"); res.StatusCode != 200 || !ok {
			t.Errorf("GET /metrics on [metrics] addr = %d, want the metrics without credentials", res.StatusCode)
		}
		if res, _, _ := getMetrics(t, http.DefaultClient, "http://"+addr+"/api/captures", ""); res.StatusCode != 404 {
			t.Errorf("the metrics listener answers GET /api/captures with %d, want 404: it serves metrics only", res.StatusCode)
		}
	})
}

// TestBackupMetrics: a scheduled backup sets the last backup's time, duration
// and size, and a restarted server reads the newest archive already there.
func TestBackupMetrics(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	data := migratedDir(t, t.TempDir())
	if _, err := secretkey.Load(data); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(store.Options{Path: filepath.Join(data, "recur.db"), Migrations: migrations.FS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m := metrics.New(metrics.Options{})
	clock := now
	o := backup.Options{Dir: filepath.Join(t.TempDir(), "backups"), Interval: 24 * time.Hour, Keep: 2, DataDir: data, Store: s,
		Logger: slog.New(slog.DiscardHandler), Observe: m.ObserveBackup,
		Now: func() time.Time { clock = clock.Add(2 * time.Second); return clock }} // each reading 2s on
	b := backup.NewScheduled(o)
	if err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(o.Dir, "recur-backup-*"))
	if len(names) != 1 {
		t.Fatalf("the run wrote %v, want one archive", names)
	}
	st, err := os.Stat(names[0])
	if err != nil {
		t.Fatal(err)
	}
	got := scrapeOf(t, m)
	// due() reads the clock once, then the backup twice: start and end.
	if at, want := got["recur_backup_last_success_timestamp_seconds"], float64(now.Add(4*time.Second).Unix()); at != want {
		t.Errorf("last backup's time = %v, want %v", at, want)
	}
	if d := got["recur_backup_last_duration_seconds"]; d <= 0 {
		t.Errorf("last backup's duration = %v, want the time the write took", d)
	}
	if size := got["recur_backup_last_size_bytes"]; size != float64(st.Size()) {
		t.Errorf("last backup's size = %v, want the archive's %d bytes", size, st.Size())
	}

	// A restarted server makes the job anew, which reads the newest archive.
	restarted := metrics.New(metrics.Options{})
	o.Observe = restarted.ObserveBackup
	backup.NewScheduled(o)
	again := scrapeOf(t, restarted)
	stamp := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(names[0]), "recur-backup-"), ".tar.gz")
	named, err := time.Parse("20060102T150405.000Z", stamp)
	if err != nil {
		t.Fatalf("the archive's name %s holds no time: %v", names[0], err)
	}
	if again["recur_backup_last_success_timestamp_seconds"] != float64(named.Unix()) ||
		again["recur_backup_last_size_bytes"] != float64(st.Size()) {
		t.Errorf("after a restart the metrics read %v, want the newest archive's time and size", again)
	}
}

// scrapeOf is what m serves at GET /metrics.
func scrapeOf(t *testing.T, m *metrics.Metrics) scrape {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	_, got, _ := getMetrics(t, http.DefaultClient, srv.URL, "")
	return got
}
