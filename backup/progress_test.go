package backup

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// countThrough reads size bytes through p's reader, under label.
func countThrough(p *Progress, label string, size int) {
	p.Count(label, int64(size))
	io.Copy(io.Discard, p.Reader(bytes.NewReader(make([]byte, size))))
	p.Done()
}

// TestProgressOnTerminal: on a terminal the count is one line rewritten
// with \r, once a MiB and at the end, and the next step starts a new line.
func TestProgressOnTerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, true)
	p.Step("Writing the archive...")
	countThrough(p, "database", 3<<20+512)
	p.Step("Checking the database...")
	got := out.String()
	for _, want := range []string{
		"Writing the archive...\n\rdatabase: 0 bytes of 3.0 MiB (0%)\x1b[K",
		"\rdatabase: 1.0 MiB of 3.0 MiB (33%)\x1b[K",
		"\rdatabase: 3.0 MiB of 3.0 MiB (100%)\x1b[K\nChecking the database...\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
	// 0, 1, 2, 3 MiB and the end: a handful, never one a buffer.
	if n := strings.Count(got, "\r"); n != 5 {
		t.Errorf("the line was rewritten %d times, want about once a MiB:\n%q", n, got)
	}
}

// TestProgressOffTerminal: to a file or a pipe only the steps are written,
// one plain line each, without \r or escape sequences.
func TestProgressOffTerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, false)
	p.Step("Writing the archive...")
	countThrough(p, "database", 3<<20)
	p.Step("Checking the database...")
	if got, want := out.String(), "Writing the archive...\nChecking the database...\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}
