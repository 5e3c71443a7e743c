package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/metrics"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/store"
)

// fakeCounts answers the capture counts of a scrape.
type fakeCounts struct {
	stats store.CaptureStats
	err   error
	now   time.Time
}

func (f *fakeCounts) CaptureStats(context.Context) (store.CaptureStats, error) { return f.stats, f.err }
func (f *fakeCounts) Now() time.Time                                           { return f.now }

type fakeModel struct{ err error }

func (f fakeModel) Chat(_ context.Context, req pipeline.ChatRequest) (pipeline.ChatResult, error) {
	return pipeline.ChatResult{PromptTokens: 120, OutputTokens: 30, Truncated: req.User == "long"}, f.err
}
func (f fakeModel) Embed(context.Context, []string) ([][]float32, error) {
	return [][]float32{{1}}, f.err
}

type fakeDetector struct{ err error }

func (f fakeDetector) Detect(context.Context, string) error { return f.err }

type fakeSender struct{ err error }

func (f fakeSender) Send(context.Context, mail.Message) error { return f.err }

// activity makes one of everything the metrics count, and returns the
// metrics with their fake database.
func activity(t *testing.T) (*metrics.Metrics, *fakeCounts) {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	counts := &fakeCounts{now: now, stats: store.CaptureStats{
		ByStatus:     map[store.CaptureStatus]int{store.StatusQueued: 3, store.StatusProcessing: 1, store.StatusProcessed: 10, store.StatusFailed: 2},
		OldestQueued: now.Add(-90 * time.Second),
	}}
	m := metrics.New(metrics.Options{Captures: counts})
	ctx := context.Background()
	model := m.Model(fakeModel{})
	model.Chat(ctx, pipeline.ChatRequest{Step: "extract"})
	model.Chat(ctx, pipeline.ChatRequest{Step: "extract"})
	model.Chat(ctx, pipeline.ChatRequest{Step: "segment", User: "long"})
	model.Embed(ctx, []string{"x"})
	m.Model(fakeModel{err: errors.New("down")}).Chat(ctx, pipeline.ChatRequest{Step: "translate"})
	m.Detector(fakeDetector{}).Detect(ctx, "u1")
	m.Detector(fakeDetector{err: errors.New("bad")}).Detect(ctx, "u1")
	m.Sender(fakeSender{}).Send(ctx, mail.Message{})
	m.Sender(fakeSender{}).Send(ctx, mail.Message{})
	m.Sender(fakeSender{err: errors.New("refused")}).Send(ctx, mail.Message{})
	m.ObserveRequest("GET /api/captures/{id}", 200, 20*time.Millisecond)
	m.ObserveRequest("GET /api/captures/{id}", 404, 5*time.Millisecond)
	return m, counts
}

// scraped is one answer of the metrics handler: the type of each family
// and the value of each series ("name{labels}").
type scraped struct {
	types  map[string]string
	series map[string]float64
}

// families scrapes the metrics as Prometheus would.
func families(t *testing.T, m *metrics.Metrics) scraped {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape = %d %s", rec.Code, rec.Body)
	}
	out := scraped{types: map[string]string{}, series: map[string]float64{}}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			out.types[f[2]] = f[3]
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out.series[line[:i]] = v
		}
	}
	return out
}

// value is the value of the series of family with the labels (name, value
// pairs), the sample count for a histogram, -1 when absent.
func value(s scraped, family string, labels ...string) float64 {
	name := family
	if s.types[family] == "histogram" {
		name += "_count"
	}
next:
	for series, v := range s.series {
		base, lbls, _ := strings.Cut(series, "{")
		if base != name {
			continue
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if !strings.Contains(lbls, labels[i]+`="`+labels[i+1]+`"`) {
				continue next
			}
		}
		return v
	}
	return -1
}

// TestMetrics counts one of everything and reads each family back.
func TestMetrics(t *testing.T) {
	t.Parallel()
	m, counts := activity(t)
	fams := families(t, m)
	for _, c := range []struct {
		family string
		labels []string
		want   float64
	}{
		{"recur_captures", []string{"status", "queued"}, 3},
		{"recur_captures", []string{"status", "processed"}, 10},
		{"recur_captures", []string{"status", "failed"}, 2},
		{"recur_queue_depth", nil, 3},
		{"recur_queue_oldest_age_seconds", nil, 90},
		{"recur_model_calls_total", []string{"step", "extract", "result", "ok"}, 2},
		{"recur_model_calls_total", []string{"step", "segment", "result", "truncated"}, 1},
		{"recur_model_calls_total", []string{"step", "translate", "result", "error"}, 1},
		{"recur_model_calls_total", []string{"step", "embed", "result", "ok"}, 1},
		{"recur_model_call_duration_seconds", []string{"step", "extract"}, 2},
		{"recur_model_prompt_tokens_total", []string{"step", "extract"}, 240},
		{"recur_model_output_tokens_total", []string{"step", "extract"}, 60},
		{"recur_http_requests_total", []string{"route", "GET /api/captures/{id}", "code", "404"}, 1},
		{"recur_http_request_duration_seconds", []string{"route", "GET /api/captures/{id}"}, 2},
		{"recur_detection_runs_total", []string{"result", "ok"}, 1},
		{"recur_detection_runs_total", []string{"result", "error"}, 1},
		{"recur_detection_duration_seconds", nil, 2},
		{"recur_mail_sent_total", nil, 2},
		{"recur_mail_failed_total", nil, 1},
	} {
		if got := value(fams, c.family, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	runtimeFamilies := []string{"go_goroutines"}
	if runtime.GOOS == "linux" { // the process collector reads /proc
		runtimeFamilies = append(runtimeFamilies, "process_cpu_seconds_total")
	}
	for _, family := range runtimeFamilies {
		if _, ok := fams.types[family]; !ok {
			t.Errorf("%s is missing", family)
		}
	}

	t.Run("EmptyQueue", func(t *testing.T) {
		counts.stats = store.CaptureStats{ByStatus: map[store.CaptureStatus]int{store.StatusQueued: 0, store.StatusProcessing: 0, store.StatusProcessed: 4, store.StatusFailed: 0}}
		fams := families(t, m)
		if got := value(fams, "recur_queue_oldest_age_seconds"); got != 0 {
			t.Errorf("oldest age with nothing queued = %v, want 0", got)
		}
	})
	t.Run("DatabaseError", func(t *testing.T) {
		counts.err = errors.New("database is locked")
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "recur_mail_sent_total 2") {
			t.Errorf("scrape while the database fails = %d, want 200 with the other metrics:\n%s", rec.Code, rec.Body)
		}
	})
}

// TestPrivateRegistry: two Metrics never share a count, and neither
// registers in Prometheus's global registry.
func TestPrivateRegistry(t *testing.T) {
	t.Parallel()
	a := metrics.New(metrics.Options{})
	b := metrics.New(metrics.Options{})
	a.Sender(fakeSender{}).Send(context.Background(), mail.Message{})
	if got := value(families(t, b), "recur_mail_sent_total"); got != 0 {
		t.Errorf("a mail counted by one Metrics shows %v in another", got)
	}
}

// TestDashboard checks that deploy/grafana-dashboard.json is valid JSON and
// that every query in it names metric families that exist.
func TestDashboard(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	m, _ := activity(t)
	fams := families(t, m)
	exists := func(name string) bool {
		if _, ok := fams.types[name]; ok {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(name, suffix) && fams.types[strings.TrimSuffix(name, suffix)] == "histogram" {
				return true
			}
		}
		return false
	}
	metricName := regexp.MustCompile(`\b(?:recur|go|process)_[a-z0-9_]+\b`)
	exprs := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			exprs++
			names := metricName.FindAllString(target.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: %q names no metric", p.Title, target.Expr)
			}
			for _, name := range names {
				if !exists(name) {
					t.Errorf("panel %q: %q names %s, which is no metric family", p.Title, target.Expr, name)
				}
			}
		}
	}
	if exprs == 0 {
		t.Error("the dashboard has no queries")
	}
	// Every family of Recur's own has a panel.
	all := string(b)
	for name := range fams.types {
		if strings.HasPrefix(name, "recur_") && !strings.Contains(all, name) {
			t.Errorf("no panel shows %s", name)
		}
	}
}

// TestBuildAndBackup: the build's facts are one series of value 1, and the
// last backup's time, duration and size read back as they were observed.
func TestBuildAndBackup(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Options{Build: metrics.Build{Version: "v1.2.3", Commit: "abc123", GoVersion: "go1.26.9"}})
	fams := families(t, m)
	if got := fams.series[`recur_build_info{commit="abc123",goversion="go1.26.9",version="v1.2.3"}`]; got != 1 {
		t.Errorf("recur_build_info = %v, want 1 with the version, commit and Go version; got %v", got, fams.series)
	}
	if got := value(fams, "recur_backup_last_success_timestamp_seconds"); got != 0 {
		t.Errorf("before any backup, the last backup's time = %v, want 0", got)
	}
	at := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	m.ObserveBackup(at, 1500*time.Millisecond, 4096)
	fams = families(t, m)
	for family, want := range map[string]float64{
		"recur_backup_last_success_timestamp_seconds": float64(at.Unix()),
		"recur_backup_last_duration_seconds":          1.5,
		"recur_backup_last_size_bytes":                4096,
	} {
		if got := value(fams, family); got != want {
			t.Errorf("%s = %v, want %v", family, got, want)
		}
	}
}

// TestRoundBuckets: every histogram bucket's le label is a round number
// (0.005, never 0.015000000000000001), as a person reads it on a dashboard.
func TestRoundBuckets(t *testing.T) {
	t.Parallel()
	m, _ := activity(t)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	le := regexp.MustCompile(`le="([^"]*)"`)
	round := regexp.MustCompile(`^(\+Inf|\d+(\.\d{1,3})?)$`)
	seen := 0
	for _, match := range le.FindAllStringSubmatch(rec.Body.String(), -1) {
		seen++
		if !round.MatchString(match[1]) {
			t.Errorf("bucket le=%q is not a round number", match[1])
		}
	}
	if seen == 0 {
		t.Fatal("no histogram bucket was scraped")
	}
}
