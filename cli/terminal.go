package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/recur-journal/recur/internal/english"
	"github.com/recur-journal/recur/store"
)

// readPassword hashes the password on the first line of r.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	hash, err := store.HashPassword(strings.TrimRight(line, "\r\n"))
	if err != nil {
		return "", errors.New(store.ErrorMessage(err))
	}
	return hash, nil
}

// isTerminal reports whether r is a terminal a person types at.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// confirm asks question on w and reports whether the answer read from r is yes.
func confirm(r io.Reader, w io.Writer, question string) bool {
	fmt.Fprint(w, question)
	line, _ := bufio.NewReader(r).ReadString('\n')
	return strings.EqualFold(strings.TrimSpace(line), "yes")
}

// cell makes text a user wrote safe to print on one line of the owner's
// terminal: control characters, which could move the cursor or rewrite
// what was printed before, become U+FFFD, and line breaks and tabs spaces.
func cell(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

func shortTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func jsonTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := store.FormatTime(*t)
	return &s
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// count says n things, in the singular or the plural.
func counted(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, english.Plural(n, one, many))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
