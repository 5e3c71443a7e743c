package cli

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// notifier tells systemd how the service is doing, as sd_notify(3) does,
// when a unit of Type=notify runs Recur: $NOTIFY_SOCKET names a datagram
// socket, a file or, starting with '@', an abstract one (Go's net package
// reads that '@' as Linux's leading NUL). A nil notifier sends nothing.
type notifier struct {
	addr     *net.UnixAddr
	watchdog time.Duration // how often to send WATCHDOG=1; 0 for never
}

// newNotifier reads $NOTIFY_SOCKET and $WATCHDOG_USEC from environ, and
// returns nil when Recur does not run under systemd's notify protocol.
func newNotifier(environ []string) *notifier {
	env := func(name string) string {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	socket := env("NOTIFY_SOCKET")
	if socket == "" {
		return nil
	}
	n := &notifier{addr: &net.UnixAddr{Name: socket, Net: "unixgram"}}
	// WATCHDOG_PID, when set, names the process the watchdog is for.
	usec, err := strconv.ParseInt(env("WATCHDOG_USEC"), 10, 64)
	if pid := env("WATCHDOG_PID"); err == nil && usec > 0 && (pid == "" || pid == strconv.Itoa(os.Getpid())) {
		// Half the timeout, as sd_watchdog_enabled(3) advises.
		n.watchdog = time.Duration(usec) * time.Microsecond / 2
	}
	return n
}

// send sends state, newline-separated KEY=VALUE lines such as READY=1.
func (n *notifier) send(state string) error {
	if n == nil {
		return nil
	}
	conn, err := net.DialUnix("unixgram", nil, n.addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}

// watch sends WATCHDOG=1 every interval while healthy succeeds, until ctx
// ends. A failing check sends nothing, so systemd restarts a server
// whose database stopped answering once WatchdogSec passes.
func (n *notifier) watch(ctx context.Context, healthy func(context.Context) error, onErr func(error)) {
	if n == nil || n.watchdog == 0 {
		return
	}
	tick := time.NewTicker(n.watchdog)
	defer tick.Stop()
	for {
		check, cancel := context.WithTimeout(ctx, n.watchdog)
		err := healthy(check)
		cancel()
		if err == nil {
			err = n.send("WATCHDOG=1")
		}
		if err != nil && ctx.Err() == nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// startNotify tells systemd the server is ready and starts the watchdog,
// once it listens with the database open.
func (m *Main) startNotify() {
	m.notify = newNotifier(m.Env)
	if m.notify == nil {
		return
	}
	m.tellSystemd("READY=1")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	m.stopWatchdog = func() { cancel(); <-done }
	go func() {
		defer close(done)
		m.notify.watch(ctx, m.store.Ping, func(err error) {
			m.Logger.Warn("watchdog not told: the database does not answer", "error", err)
		})
	}()
}

// stopNotify tells systemd the server is stopping and ends the watchdog.
func (m *Main) stopNotify() {
	if m.notify == nil {
		return
	}
	m.stopWatchdog() // first, so that STOPPING=1 is the last word
	m.tellSystemd("STOPPING=1")
	m.notify = nil
}

// tellSystemd sends state to systemd, when Recur runs under it.
func (m *Main) tellSystemd(state string) {
	if err := m.notify.send(state); err != nil {
		m.Logger.Warn("could not notify systemd", "state", state, "error", err)
	}
}
