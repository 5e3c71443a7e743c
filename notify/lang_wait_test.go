package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// mailed is a reader with a pattern and a mail channel for new patterns.
type mailed struct {
	clock   *storetest.Clock
	s       *store.Store
	u       *store.User
	p       *store.Pattern
	channel string
	n       *notify.Notifier
}

// newPatternMailed gives a reader of app_locale tag a pattern (skipping
// meals) and a mail channel for events (new patterns when none are named),
// with a notifier that mails into box.
func newPatternMailed(t *testing.T, tag string, box *mailbox, events ...string) mailed {
	t.Helper()
	ctx := context.Background()
	clock := storetest.NewClock(t)
	s := storetest.MustOpenAt(t, t.TempDir()+"/recur.db", clock.Now)
	u := storetest.MustCreateUser(t, s, "alice@example.com")
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingAppLocale, Value: tag}); err != nil {
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
	if len(events) == 0 {
		events = []string{notify.PatternDetected}
	}
	c := &store.Channel{UserID: u.ID, Kind: store.ChannelMail, Events: events}
	if err := s.CreateChannel(ctx, c, notify.MaxChannels); err != nil {
		t.Fatal(err)
	}
	n := notify.New(notify.Options{Store: s, Logger: quiet(), Mailer: box, Now: clock.Now})
	return mailed{clock, s, u, &list[0], c.ID, n}
}

// work runs the notifier's due deliveries once and returns the mails sent
// so far.
func work(t *testing.T, n *notify.Notifier, box *mailbox) []notify.Mail {
	t.Helper()
	if _, err := n.Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	box.mu.Lock()
	defer box.mu.Unlock()
	return append([]notify.Mail(nil), box.sent...)
}

// The first notice of a new pattern, which the detection sends before the
// pipeline names the pattern in the reader's language, waits for that
// name, a while, without counting as a failed attempt; past the wait it
// goes without the English name. An English reader's goes at once.
func TestNewPatternNoticeWaitsForTheLocalName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("NamedMeanwhile", func(t *testing.T) {
		t.Parallel()
		box := &mailbox{}
		m := newPatternMailed(t, "de", box)
		clock, s, u, p, n := m.clock, m.s, m.u, m.p, m.n
		n.Emit(ctx, u.ID, notify.PatternDetected, map[string]string{"id": p.ID, "name": p.Name})
		if sent := work(t, n, box); len(sent) != 0 {
			t.Fatalf("mailed before the pattern had a German name: %+v", sent)
		}
		if err := s.SetCategoryName(ctx, p.CategoryID, "de", p.Name, "Mahlzeiten auslassen"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(notify.NameRetry)
		sent := work(t, n, box)
		if len(sent) != 1 || sent[0].Subject != "Neues Muster: Mahlzeiten auslassen" {
			t.Fatalf("mails %+v, want one for Mahlzeiten auslassen", sent)
		}
		ds, _, err := s.ListDeliveries(ctx, u.ID, []string{store.ChannelMail}, m.channel, store.Page{Page: 1, Limit: 10})
		if err != nil || len(ds) != 1 || ds[0].Attempts != 1 || ds[0].LastError != "" {
			t.Errorf("deliveries %+v (%v): want one, delivered at its one attempt", ds, err)
		}
	})
	t.Run("NeverNamed", func(t *testing.T) {
		t.Parallel()
		box := &mailbox{}
		m := newPatternMailed(t, "fr", box)
		clock, u, p, n := m.clock, m.u, m.p, m.n
		n.Emit(ctx, u.ID, notify.PatternDetected, map[string]string{"id": p.ID, "name": p.Name})
		for waited := time.Duration(0); waited < notify.NameWait; waited += notify.NameRetry {
			if sent := work(t, n, box); len(sent) != 0 {
				t.Fatalf("mailed %v after the event, before the wait was over: %+v", waited, sent)
			}
			clock.Advance(notify.NameRetry)
		}
		sent := work(t, n, box)
		if len(sent) != 1 {
			t.Fatalf("%d mails once the wait was over, want 1", len(sent))
		}
		if m := sent[0]; m.Subject != "Nouveau schéma" || strings.Contains(m.Text, p.Name) || !strings.Contains(m.Text, "trois jours différents") {
			t.Errorf("mail %q: %q; want it in French, without the English name %q", m.Subject, m.Text, p.Name)
		}
	})
	t.Run("EnglishAtOnce", func(t *testing.T) {
		t.Parallel()
		box := &mailbox{}
		m := newPatternMailed(t, "en", box)
		u, p, n := m.u, m.p, m.n
		n.Emit(ctx, u.ID, notify.PatternDetected, map[string]string{"id": p.ID, "name": p.Name})
		if sent := work(t, n, box); len(sent) != 1 || sent[0].Subject != "New pattern: "+p.Name {
			t.Fatalf("mails %+v, want one at once for %s", sent, p.Name)
		}
	})
}
