package notify_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
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
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingAppLocale, Value: "de"}); err != nil {
		t.Fatal(err)
	}
	for d := 1; d <= 3; d++ {
		storetest.MustWriteAnalysed(t, s, u.ID, clock.Now().AddDate(0, 0, -d),
			store.NewTag{Type: store.TagBadBehaviour, Name: "skipped lunch", NewCategory: "skipping meals"},
			store.NewTag{Type: store.TagNegativeFeeling, Name: "anxious", FeelingID: "anxious"})
	}
	if err := detect.NewDetector(s, nil).Detect(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.ListPatterns(ctx, u.ID, store.Page{Page: 1, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("patterns %v, %v", list, err)
	}
	p := list[0]
	if err := s.SetCategoryName(ctx, p.CategoryID, "de", p.Name, "Mahlzeiten auslassen"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateChannel(ctx, &store.Channel{UserID: u.ID, Kind: store.ChannelMail, Events: []string{notify.PatternDetected, notify.Reminder}}, notify.MaxChannels); err != nil {
		t.Fatal(err)
	}
	box := &mailbox{}
	n := notify.New(notify.Options{Store: s, Logger: quiet(), Mailer: box, Now: clock.Now})
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
