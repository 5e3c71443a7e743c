package store_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// phc makes a hash the way earlier versions did, with the given parameters.
func phc(password string, m, t uint32, p uint8) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, t, m, p, 32)
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", m, t, p,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	hash, err := store.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=19456,t=2,p=1$"; !strings.HasPrefix(hash, want) {
		t.Fatalf("hash %q, want the parameters in it: %s", hash, want)
	}
	t.Run("OK", func(t *testing.T) {
		if ok, current := store.VerifyPassword(hash, "correct horse battery"); !ok || !current {
			t.Fatalf("verify = %v, current = %v", ok, current)
		}
		if ok, _ := store.VerifyPassword(hash, "correct horse batterY"); ok {
			t.Fatal("a wrong password matched")
		}
	})
	t.Run("OlderParametersStillVerify", func(t *testing.T) {
		old := phc("correct horse battery", 64*1024, 3, 2)
		ok, current := store.VerifyPassword(old, "correct horse battery")
		if !ok || current {
			t.Fatalf("verify = %v, current = %v; want a match made with other parameters", ok, current)
		}
	})
	t.Run("ErrOutOfBounds", func(t *testing.T) {
		for name, h := range map[string]string{
			"Memory":  strings.Replace(hash, "m=19456", "m=4194304", 1),
			"Time":    strings.Replace(hash, "t=2", "t=1000", 1),
			"Threads": strings.Replace(hash, "p=1", "p=200", 1),
			"Version": strings.Replace(hash, "v=19", "v=16", 1),
			"Unknown": strings.Replace(hash, "p=1", "p=1,x=2", 1),
			"Empty":   "",
		} {
			if ok, _ := store.VerifyPassword(h, "correct horse battery"); ok {
				t.Errorf("%s: %q matched", name, h)
			}
		}
	})
	t.Run("ErrShort", func(t *testing.T) {
		if _, err := store.HashPassword("ééééééé"); store.ErrorCode(err) != store.EINVALID {
			t.Fatalf("seven characters: %v", err)
		}
		if _, err := store.HashPassword("éééééééé"); err != nil {
			t.Fatalf("eight characters, sixteen bytes: %v", err)
		}
	})
}

func TestNormaliseEmail(t *testing.T) {
	t.Parallel()
	want := norm.NFC.String("josé@example.com")
	for _, in := range []string{want, "  " + want + "\t", strings.ToUpper(want), norm.NFD.String(want), " " + norm.NFD.String("JOSÉ@Example.COM") + "  "} {
		if got := store.NormaliseEmail(in); got != want {
			t.Errorf("NormaliseEmail(%q) = %q, want %q", in, got, want)
		}
	}
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := &store.User{Email: " " + norm.NFD.String("JOSÉ@Example.com")}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if u.Email != want {
		t.Fatalf("stored %q, want %q", u.Email, want)
	}
	got, err := s.FindUserByEmail(ctx, strings.ToUpper(norm.NFD.String(want))+"   ")
	if err != nil || got.ID != u.ID {
		t.Fatalf("find by a variant: %v %v", got, err)
	}
	if err := s.CreateUser(ctx, &store.User{Email: want}); store.ErrorCode(err) != store.ECONFLICT {
		t.Fatalf("the same address again: %v, want ECONFLICT", err)
	}
}

// Rows written before addresses were normalised are lower-cased by 00007.
func TestMigrationNormalisesStoredEmails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recur.db")
	s, db := openBefore(t, path, 7)
	if _, err := db.ExecContext(ctx, `INSERT INTO users (id, email, name, created_at, updated_at) VALUES ('u1', 'Ana@Example.COM', '', '', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRowContext(ctx, `SELECT email FROM users WHERE id = 'u1'`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "ana@example.com"; got != want {
		t.Fatalf("stored %q after the migration, want %q", got, want)
	}
}
