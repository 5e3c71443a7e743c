package notify_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/notify"
)

// Every event is told in each language, its words from the catalogue, the
// pattern's name kept as it is.
func TestDescribeInEachLanguage(t *testing.T) {
	t.Parallel()
	types := []string{notify.CaptureProcessed, notify.CaptureFailed, notify.PatternDetected, notify.PatternUrgent,
		notify.PatternReopened, notify.PatternClosed, notify.ReviewReady, notify.Reminder, notify.Test}
	for _, lang := range i18n.Languages() {
		for _, typ := range types {
			body, _ := json.Marshal(map[string]any{"type": typ, "data": map[string]string{"name": "skipping meals", "week": "2026-W48"}})
			en, got := notify.Describe(body), notify.DescribeIn(i18n.For(lang), body)
			if got.Title == "" || got.Text == "" {
				t.Errorf("%s %s: %+v", lang, typ, got)
			}
			if lang != "en" && (got.Title == en.Title || got.Text == en.Text) {
				t.Errorf("%s %s reads as English: %q / %q", lang, typ, got.Title, got.Text)
			}
			if strings.HasPrefix(typ, "pattern.") && !strings.Contains(got.Title+got.Text, "skipping meals") {
				t.Errorf("%s %s lacks the pattern's name: %+v", lang, typ, got)
			}
		}
	}
	if got, want := notify.DescribeIn(i18n.For("de"), []byte(`{"type":"reminder"}`)).Title, "Zeit zum Schreiben"; got != want {
		t.Errorf("de reminder title %q, want %q", got, want)
	}
}
