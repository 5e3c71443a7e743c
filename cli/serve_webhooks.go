package cli

import (
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"

	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/notify"
)

// hookParts are the notifier of webhooks, ntfy and mail channels and its
// delivery worker, while serving.
type hookParts struct {
	notifier *notify.Notifier
	stop     context.CancelFunc
	done     chan struct{}
}

// newNotifier makes the notifier that records events for webhooks, before
// the pipeline that tells it of them. It fails when [push]
// fcm_credentials_file is set but cannot be read.
func (m *Main) newNotifier() error {
	var fcm *notify.FCM
	if path := m.Config.Push.FCMCredentialsFile; path != "" {
		var err error
		if fcm, err = notify.LoadFCM(path, m.Config.Push.FCMURL); err != nil {
			return fmt.Errorf("push.fcm_credentials_file: %w", err)
		}
	}
	m.hooks.notifier = notify.New(notify.Options{Store: m.store, Logger: m.Logger.With("part", "notify"),
		AllowPrivateTargets: m.Config.Notify.AllowPrivateTargets, Now: m.Now, Mailer: channelMail{m},
		DataDir: m.Config.Storage.DataDir, PushSubject: m.pushSubject(), FCM: fcm})
	return nil
}

// pushSubject is the contact push services see in each VAPID signature:
// base_url when it is https, else the mail sender's address, else a
// placeholder (some push services refuse it; set one of the two).
func (m *Main) pushSubject() string {
	if u := m.Config.Server.BaseURL; strings.HasPrefix(u, "https://") {
		return u
	}
	if from := m.Config.Mail.From; from != "" {
		if a, err := netmail.ParseAddress(from); err == nil {
			return a.Address
		}
	}
	return "recur@localhost"
}

// channelMail sends the mail of mail channels through the configured
// sender (the log when no SMTP server is set), as it is at the time.
type channelMail struct{ m *Main }

// SendMail implements notify.Mailer.
func (c channelMail) SendMail(ctx context.Context, msg notify.Mail) error {
	if c.m.sender == nil {
		return errors.New("mail is not set up yet")
	}
	return c.m.sender.Send(ctx, mail.Message{To: msg.To, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML})
}

// startDeliveries starts the worker that delivers recorded events.
func (m *Main) startDeliveries() {
	ctx, stop := context.WithCancel(context.Background())
	m.hooks.stop, m.hooks.done = stop, make(chan struct{})
	go func() {
		defer close(m.hooks.done)
		m.hooks.notifier.Run(ctx)
	}()
}

// stopDeliveries stops the worker, letting an attempt under way end; what
// is still pending is delivered after the next start.
func (m *Main) stopDeliveries() {
	if m.hooks.stop != nil {
		m.hooks.stop()
		<-m.hooks.done
		m.hooks = hookParts{}
	}
}
