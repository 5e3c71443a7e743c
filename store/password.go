package store

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are the argon2id parameters of a hash. Each hash carries
// its own in its PHC string ($argon2id$v=19$m=...,t=...,p=...$salt$key), so
// hashes made with older parameters keep verifying after these change.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8  // lanes
}

// CurrentPasswordParams are the parameters new hashes are made with:
// OWASP's first argon2id option (19 MiB, two passes, one lane). One hash
// holds 19 MiB while it runs; the server runs at most one a core at once,
// so a flood of sign-ins costs tens of megabytes, not gigabytes. Hashes made
// before (64 MiB, three passes, two lanes) still verify and are replaced at
// the next successful sign-in.
var CurrentPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1}

// The bounds of parameters a stored hash may ask for. A hash outside them
// matches nothing, so no stored value can make one check cost more than this.
const (
	maxPasswordMemory  = 64 * 1024 // KiB: the parameters of hashes made before
	maxPasswordTime    = 4
	maxPasswordThreads = 4
	passwordKeyLen     = 32
	passwordSaltLen    = 16
)

// PasswordMinLength is the shortest password accepted, in characters.
const PasswordMinLength = 8

// HashPassword returns an argon2id hash of password in PHC form, made with
// CurrentPasswordParams. It returns EINVALID under password when the
// password is shorter than PasswordMinLength.
func HashPassword(password string) (string, error) {
	if len([]rune(password)) < PasswordMinLength {
		return "", Invalid("password", "The password must be at least %d characters.", PasswordMinLength)
	}
	salt := make([]byte, passwordSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	p := CurrentPasswordParams
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, passwordKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the PHC-encoded hash, and
// whether the hash was made with CurrentPasswordParams (when it was not, the
// caller may store a new one). An empty, malformed or out-of-bounds hash
// matches nothing and costs no hashing.
func VerifyPassword(hash, password string) (ok, current bool) {
	p, salt, want, err := parsePasswordHash(hash)
	if err != nil {
		return false, false
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, p == CurrentPasswordParams
}

// parsePasswordHash reads $argon2id$v=19$m=M,t=T,p=P$salt$key, refusing
// parameters outside the bounds above.
func parsePasswordHash(hash string) (PasswordParams, []byte, []byte, error) {
	var p PasswordParams
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, fmt.Errorf("not an argon2id hash of version %d", argon2.Version)
	}
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return p, nil, nil, fmt.Errorf("parameter %q: %w", kv, err)
		}
		switch k {
		case "m":
			p.Memory = uint32(n)
		case "t":
			p.Time = uint32(n)
		case "p":
			if n > 255 {
				return p, nil, nil, fmt.Errorf("parameter %q out of range", kv)
			}
			p.Threads = uint8(n)
		default:
			return p, nil, nil, fmt.Errorf("unknown parameter %q", kv)
		}
	}
	if p.Time < 1 || p.Time > maxPasswordTime || p.Threads < 1 || p.Threads > maxPasswordThreads ||
		p.Memory < 8*uint32(p.Threads) || p.Memory > maxPasswordMemory {
		return p, nil, nil, fmt.Errorf("parameters %s out of bounds", parts[3])
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 || len(salt) > 64 {
		return p, nil, nil, fmt.Errorf("bad salt")
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, fmt.Errorf("bad key")
	}
	return p, salt, key, nil
}
