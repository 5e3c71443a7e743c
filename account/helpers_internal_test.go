package account

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// memorySession is one browser's session kept in memory: the rules need
// no more of a session than Session says.
type memorySession struct {
	mu                        sync.Mutex
	token, user, pending      string
	remember, pendingRemember bool
	confirmed                 time.Time
}

var _ Session = (*memorySession)(nil)

func (m *memorySession) Token(context.Context) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.token
}

func (m *memorySession) UserID(context.Context) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.user
}

func (m *memorySession) SignIn(_ context.Context, userID string, remember bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.user, m.remember, m.pending, m.pendingRemember = userID, remember, "", false
	return nil
}

func (m *memorySession) AwaitSecondFactor(_ context.Context, userID string, remember bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.user, m.pending, m.pendingRemember = "", userID, remember
	return nil
}

func (m *memorySession) Pending(context.Context) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending, m.pendingRemember
}

func (m *memorySession) Confirm(_ context.Context, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.confirmed = at
}

func (m *memorySession) ConfirmedAt(context.Context) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.confirmed
}

func (m *memorySession) Destroy(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.token, m.user, m.pending, m.confirmed = "", "", "", time.Time{}
	return nil
}

type ipKey struct{}

// from is ctx of a request from the address ip.
func from(ctx context.Context, ip string) context.Context { return context.WithValue(ctx, ipKey{}, ip) }

// newTestAccounts is Accounts over a real SQLite file and a session in
// memory, the client's address read from the context (from).
func newTestAccounts(t *testing.T, st *store.Store) (*Accounts, *memorySession) {
	t.Helper()
	if st == nil {
		st = storetest.MustOpen(t)
	}
	sess := &memorySession{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := New(Options{Store: st, Session: sess, BaseURL: "http://127.0.0.1", Secret: []byte("test secret"),
		ClientIP: func(ctx context.Context) string { ip, _ := ctx.Value(ipKey{}).(string); return ip },
		Log:      func(context.Context) *slog.Logger { return log }})
	return a, sess
}

func mustUserWithHash(t *testing.T, st *store.Store, email, hash string) *store.User {
	t.Helper()
	u := &store.User{Email: email, PasswordHash: hash}
	if err := st.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

// refusal is err's Error, or nil when err is not one.
func refusal(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
