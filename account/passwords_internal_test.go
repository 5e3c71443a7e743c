package account

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestPasswordChecksAreBounded(t *testing.T) {
	st := storetest.MustOpen(t)
	a, _ := newTestAccounts(t, st)
	const slots = 2
	a.passwords = newPasswords(slots, 300*time.Millisecond)
	hash, err := store.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	mustUserWithHash(t, st, "carol@example.com", hash)

	t.Run("BusyIs429", func(t *testing.T) {
		for range slots {
			a.passwords.slots <- struct{}{}
		}
		_, err := a.SignInWithPassword(from(t.Context(), "127.0.0.2"), "carol@example.com", "correct horse battery", false)
		for range slots {
			<-a.passwords.slots
		}
		if e := refusal(err); e == nil || e.Status != 429 || e.RetryAfter <= 0 || !strings.Contains(e.Message, "busy checking other passwords") {
			t.Fatalf("sign-in with every slot taken: %v, want 429 with Retry-After", err)
		}
	})
	t.Run("Flood", func(t *testing.T) {
		// Distinct addresses from distinct client addresses, so that no rate
		// limit steps in before the hashing does.
		const n = 24
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, errs[i] = a.SignInWithPassword(from(context.Background(), fmt.Sprintf("127.0.1.%d", i+1)),
					fmt.Sprintf("guess%d@example.com", i), "not the password", false)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if e := refusal(err); e == nil || !(e.Status == 422 || (e.Status == 429 && e.RetryAfter > 0)) {
				t.Errorf("sign-in %d: %v, want 422, or 429 with Retry-After", i, err)
			}
		}
		if got := a.passwords.peak.Load(); got > slots || got < 1 {
			t.Fatalf("at most %d hashes ran at once, want between 1 and %d", got, slots)
		}
		if _, err := a.SignInWithPassword(from(t.Context(), "127.0.0.3"), "carol@example.com", "correct horse battery", false); err != nil {
			t.Fatalf("the right password after the flood: %v", err)
		}
	})
}

func TestLoginLimitPerIPAcrossAddresses(t *testing.T) {
	st := storetest.MustOpen(t)
	a, _ := newTestAccounts(t, st)
	// The limiter reads the store's clock; stopped, the bucket cannot fill
	// again while a loaded machine hashes the burst's passwords.
	stopped := st.Now()
	a.limiter.now = func() time.Time { return stopped }
	burst := limits["login-ip"].Burst
	ctx := from(t.Context(), "127.0.0.4")
	for i := range burst {
		if _, err := a.SignInWithPassword(ctx, fmt.Sprintf("a%d@example.com", i), "guess", false); refusal(err) == nil || refusal(err).Status != 422 {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	_, err := a.SignInWithPassword(ctx, "fresh@example.com", "guess", false)
	if e := refusal(err); e == nil || e.Status != 429 || e.RetryAfter <= 0 {
		t.Fatalf("attempt %d from one IP, a fresh address: %v, want 429 with Retry-After", burst+1, err)
	}
	if _, err := a.SignInWithPassword(from(t.Context(), "127.0.0.5"), "fresh@example.com", "guess", false); refusal(err) == nil || refusal(err).Status != 422 {
		t.Fatalf("another IP: %v", err)
	}
}

// A hash made with the earlier parameters still signs in, and is replaced
// by one with the current parameters.
func TestLoginRehashesOlderParameters(t *testing.T) {
	st := storetest.MustOpen(t)
	a, _ := newTestAccounts(t, st)
	u := mustUserWithHash(t, st, "dave@example.com", oldHash("correct horse battery"))
	ctx := from(t.Context(), "127.0.0.6")
	if _, err := a.SignInWithPassword(ctx, "dave@example.com", "correct horse battery", false); err != nil {
		t.Fatalf("sign-in with an older hash: %v", err)
	}
	got, err := st.FindUserByID(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := store.CurrentPasswordParams
	current := fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$", p.Memory, p.Time, p.Threads)
	if !strings.HasPrefix(got.PasswordHash, current) {
		t.Fatalf("stored hash %q after sign-in, want the current parameters %q", got.PasswordHash, current)
	}
	if _, err := a.SignInWithPassword(ctx, "dave@example.com", "correct horse battery", false); err != nil {
		t.Fatalf("sign-in with the new hash: %v", err)
	}
}

// oldHash hashes password the way Recur did before (64 MiB, three passes,
// two lanes).
func oldHash(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, 3, 64*1024, 2, 32)
	return fmt.Sprintf("$argon2id$v=19$m=65536,t=3,p=2$%s$%s", base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}
