package account

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"

	"golang.org/x/crypto/chacha20poly1305"
)

// keys signs links, hashes mailed codes and seals secrets at rest, all from
// the instance's secret, which lives in the data folder.
type keys struct{ secret []byte }

// mac is an HMAC-SHA256 of the parts under a purpose, in hex.
func (k keys) mac(purpose string, parts ...string) string {
	h := hmac.New(sha256.New, k.secret)
	h.Write([]byte(purpose))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// equal compares two MACs in constant time.
func equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// seal encrypts a secret for storage.
func (k keys) seal(plain string) (string, error) {
	aead, err := chacha20poly1305.NewX(k.aeadKey())
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(plain), nil)), nil
}

// open decrypts what seal made.
func (k keys) open(sealed string) (string, error) {
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil {
		return "", err
	}
	aead, err := chacha20poly1305.NewX(k.aeadKey())
	if err != nil {
		return "", err
	}
	if len(b) < aead.NonceSize() {
		return "", errors.New("sealed value too short")
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], nil)
	return string(plain), err
}

func (k keys) aeadKey() []byte {
	h := hmac.New(sha256.New, k.secret)
	h.Write([]byte("recur/seal"))
	return h.Sum(nil)
}

// digits returns n random decimal digits.
func digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		d, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		b[i] = byte('0' + d.Int64())
	}
	return string(b)
}
