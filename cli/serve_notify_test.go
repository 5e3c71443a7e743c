package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
)

// systemdSocket plays systemd's side of the notify protocol: a datagram
// socket at name (a path, or abstract when it starts with '@').
type systemdSocket struct {
	t    *testing.T
	conn *net.UnixConn
	seen []string
}

func listenSystemd(t *testing.T, name string) *systemdSocket {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &systemdSocket{t: t, conn: conn}
}

// next returns the next message, waiting at most wait; "" when none came.
func (s *systemdSocket) next(wait time.Duration) string {
	s.t.Helper()
	buf := make([]byte, 4096)
	s.conn.SetReadDeadline(time.Now().Add(wait))
	n, err := s.conn.Read(buf)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return ""
	} else if err != nil {
		s.t.Fatal(err)
	}
	s.seen = append(s.seen, string(buf[:n]))
	return string(buf[:n])
}

// await reads messages until want, for at most 10 seconds.
func (s *systemdSocket) await(want string) {
	s.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if s.next(time.Until(deadline)) == want {
			return
		}
	}
	s.t.Fatalf("no %q within 10 seconds; systemd was told %q", want, s.seen)
}

// TestSystemdNotify runs the server as systemd runs a unit of Type=notify
// with WatchdogSec=100ms: it is ready once it listens, keeps the watchdog
// fed while it serves, says when it reloads, and stopping is its last word.
func TestSystemdNotify(t *testing.T) {
	t.Parallel()
	sock := listenSystemd(t, filepath.Join(t.TempDir(), "notify"))
	m, _, _ := startServer(t, t.TempDir(), "NOTIFY_SOCKET="+sock.conn.LocalAddr().String(), "WATCHDOG_USEC=100000")

	if got := sock.next(10 * time.Second); got != "READY=1" {
		t.Fatalf("the first message is %q, want READY=1", got)
	}
	for range 3 {
		if got := sock.next(10 * time.Second); got != "WATCHDOG=1" {
			t.Fatalf("while serving, systemd was told %q, want WATCHDOG=1 again and again (all: %q)", got, sock.seen)
		}
	}
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	sock.await("RELOADING=1")
	sock.await("READY=1")

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	sock.await("STOPPING=1")
	if got := sock.next(0); got != "" {
		t.Errorf("after STOPPING=1 systemd was told %q", got)
	}
}

func TestNotifier(t *testing.T) {
	t.Parallel()
	t.Run("AbstractSocket", func(t *testing.T) {
		sock := listenSystemd(t, "@recur-test-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		n := newNotifier([]string{"NOTIFY_SOCKET=" + sock.conn.LocalAddr().String()})
		if err := n.send("READY=1"); err != nil {
			t.Fatal(err)
		}
		if got := sock.next(10 * time.Second); got != "READY=1" {
			t.Errorf("the abstract socket got %q", got)
		}
	})
	t.Run("Environment", func(t *testing.T) {
		self := strconv.Itoa(os.Getpid())
		for _, c := range []struct {
			name string
			env  []string
			want time.Duration // -1: no notifier
		}{
			{"NotUnderSystemd", []string{"WATCHDOG_USEC=30000000"}, -1},
			{"NoWatchdog", []string{"NOTIFY_SOCKET=/run/n"}, 0},
			{"HalfTheTimeout", []string{"NOTIFY_SOCKET=/run/n", "WATCHDOG_USEC=30000000"}, 15 * time.Second},
			{"ForThisProcess", []string{"NOTIFY_SOCKET=/run/n", "WATCHDOG_USEC=30000000", "WATCHDOG_PID=" + self}, 15 * time.Second},
			{"ForAnotherProcess", []string{"NOTIFY_SOCKET=/run/n", "WATCHDOG_USEC=30000000", "WATCHDOG_PID=1" + self}, 0},
			{"BadTimeout", []string{"NOTIFY_SOCKET=/run/n", "WATCHDOG_USEC=soon"}, 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				n := newNotifier(c.env)
				if c.want < 0 {
					if n != nil {
						t.Errorf("notifier %+v, want none", n)
					}
					return
				}
				if n == nil || n.watchdog != c.want {
					t.Errorf("notifier %+v, want one with a watchdog every %v", n, c.want)
				}
			})
		}
	})
	t.Run("WatchdogOnlyWhileHealthy", func(t *testing.T) {
		sock := listenSystemd(t, filepath.Join(t.TempDir(), "notify"))
		n := newNotifier([]string{"NOTIFY_SOCKET=" + sock.conn.LocalAddr().String(), "WATCHDOG_USEC=2000"})
		var checks, failures atomic.Int32
		var healthy atomic.Bool
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			n.watch(ctx, func(context.Context) error {
				checks.Add(1)
				if !healthy.Load() {
					return errors.New("database is locked")
				}
				return nil
			}, func(error) { failures.Add(1) })
		}()
		wait.Eventually(t, 10*time.Second, "3 failed checks reported", func() bool { return failures.Load() >= 3 },
			func() string { return fmt.Sprintf("%d checks and %d failures", checks.Load(), failures.Load()) })
		if got := sock.next(0); got != "" {
			t.Fatalf("with the database failing, systemd was told %q", got)
		}
		healthy.Store(true)
		sock.await("WATCHDOG=1")
		cancel()
		<-done
	})
}
