package store_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
)

func cutPipe(plain string) (id, secret string, ok bool) { return strings.Cut(plain, "|") }

func fileContains(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(s))
}

func asError(err error, target **store.Error) bool { return errors.As(err, target) }
