package cli

import (
	"context"
	"os"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/recur-journal/recur/mail"
)

// Wait serves until ctx ends, reloading the configuration each time
// something arrives on hup: main sends SIGHUP there.
func (m *Main) Wait(ctx context.Context, hup <-chan os.Signal) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			m.Reload()
		}
	}
}

// liveKeys are the keys, or sections ending in ".", a reload applies to
// the running server; any other change waits for a restart.
var liveKeys = []string{"log.", "mail.", "server.shutdown_timeout"}

// Reload reads the configuration again as start-up does (recur.toml, the
// environment, and the files secrets are read from) and applies what
// changes while serving: [log] level and format, every [mail] setting
// (the next mail, and the next try of one being retried, use them) and
// [server] shutdown_timeout. It logs one line naming what changed and,
// when something else changed, one naming what needs a restart. A
// configuration that fails to load is logged and the running one kept;
// Reload returns its error.
func (m *Main) Reload() error {
	m.reloadMu.Lock()
	defer m.reloadMu.Unlock()
	// systemd shows the unit reloading until READY=1, whatever the outcome.
	m.tellSystemd("RELOADING=1")
	defer m.tellSystemd("READY=1")
	cfg, err := m.readConfig()
	if err != nil {
		m.Logger.Error("configuration not reloaded; the running one stays", "error", err)
		return err
	}
	var changed, restart []string
	running := configKeys(&m.Config)
	for i, k := range configKeys(&cfg) {
		if reflect.DeepEqual(k.field.Interface(), running[i].field.Interface()) {
			continue
		}
		if isLive(k.name) {
			changed = append(changed, k.name)
		} else {
			restart = append(restart, k.name)
		}
	}
	if (cfg.Mail.SMTPHost == "") != (m.Config.Mail.SMTPHost == "") {
		// Mail switches at once; the page was made with the old setting.
		restart = append(restart, "mail.smtp_host (for the sign-in page's note on where mail goes)")
	}
	if needsRoots(cfg) {
		installFallbackRoots()
	}
	m.Config.Log, m.Config.Mail, m.Config.Server.ShutdownWait = cfg.Log, cfg.Mail, cfg.Server.ShutdownWait
	m.logs.Set(cfg.Log)
	if m.sender != nil {
		m.sender.set(m.newSender(cfg.Mail))
	}
	if len(changed) == 0 {
		changed = []string{"nothing"}
	}
	m.Logger.Info("configuration reloaded", "changed", strings.Join(changed, ", "))
	if len(restart) > 0 {
		m.Logger.Warn("configuration changes that apply at the next restart", "needs_restart", strings.Join(restart, ", "))
	}
	return nil
}

func isLive(key string) bool {
	for _, k := range liveKeys {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	return false
}

// newSender is the mail sender c describes: SMTP, or the log when no
// smtp_host is set.
func (m *Main) newSender(c MailConfig) mail.Sender {
	if c.SMTPHost == "" {
		return &mail.LogSender{Logger: m.Logger.With("part", "mail")}
	}
	return mail.NewSMTPSender(mail.SMTPOptions{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.Username,
		Password: c.Password, From: c.From, TLS: c.TLS})
}

// mailSwitch sends through the sender set last, so a reload changes where
// mail goes without stopping the queue.
type mailSwitch struct{ current atomic.Pointer[senderBox] }

type senderBox struct{ mail.Sender }

var _ mail.Sender = (*mailSwitch)(nil)

func (s *mailSwitch) set(sender mail.Sender) { s.current.Store(&senderBox{sender}) }

// Send implements mail.Sender.
func (s *mailSwitch) Send(ctx context.Context, msg mail.Message) error {
	return s.current.Load().Send(ctx, msg)
}
