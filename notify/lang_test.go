package notify_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
)

// mailbox keeps the notifications mailed.
type mailbox struct {
	mu   sync.Mutex
	sent []notify.Mail
}

func (m *mailbox) SendMail(_ context.Context, mail notify.Mail) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, mail)
	return nil
}

// A notification mailed to a German reader is in German, and names the
// pattern by its German name once the pipeline has written one.
func TestNotificationMailSpeaksTheAppLocale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	box := &mailbox{}
	m := newPatternMailed(t, "de", box, notify.PatternDetected, notify.Reminder)
	clock, u, p, n := m.clock, m.u, m.p, m.n
	if err := m.s.SetCategoryName(ctx, p.CategoryID, "de", p.Name, "Mahlzeiten auslassen"); err != nil {
		t.Fatal(err)
	}
	n.Emit(ctx, u.ID, notify.PatternDetected, map[string]string{"id": p.ID, "name": p.Name})
	n.Emit(ctx, u.ID, notify.Reminder, map[string]string{"date": clock.Now().Format(time.DateOnly)})
	if _, err := n.Work(ctx); err != nil {
		t.Fatal(err)
	}
	box.mu.Lock()
	defer box.mu.Unlock()
	want := map[string]string{"Neues Muster: Mahlzeiten auslassen": "„Mahlzeiten auslassen“ ist an drei verschiedenen Tagen wiedergekommen.",
		"Zeit zum Schreiben": "Du hast heute noch nicht in Recur geschrieben. Ein paar Zeilen reichen."}
	if len(box.sent) != len(want) {
		t.Fatalf("%d mails sent, want %d: %+v", len(box.sent), len(want), box.sent)
	}
	for _, m := range box.sent {
		if text, ok := want[m.Subject]; !ok || m.Text != text+"\n" {
			t.Errorf("mail %q: %q; want one of %v", m.Subject, m.Text, want)
		}
	}
}
