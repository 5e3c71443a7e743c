// Package secretkey reads and makes the instance's secret, secret.key in
// the data folder, which serve, backup and restore share.
package secretkey

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File is the name of the instance's secret inside the data folder.
const File = "secret.key"

// Load reads the instance's secret from the data folder, making it on
// first start. It signs links and sessions' codes and seals two-factor
// secrets: losing it signs everyone out and turns two-factor off.
func Load(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, Text(key), 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return key, nil
	} else if err != nil {
		return nil, err
	}
	key, ok := Parse(b)
	if !ok {
		return nil, fmt.Errorf("%s is not a secret Recur made; move it away to make a new one (everyone will have to sign in again)", path)
	}
	return key, nil
}

// Text is how a secret is written to secret.key: hex and a newline.
func Text(key []byte) []byte { return []byte(hex.EncodeToString(key) + "\n") }

// Parse reads the contents of secret.key: at least 32 bytes in hex.
func Parse(b []byte) ([]byte, bool) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	return key, err == nil && len(key) >= 32
}
