package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// execute runs the command line as main does and returns the exit status
// with what was written to standard output and standard error.
func execute(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	m := NewMain()
	var out, errb bytes.Buffer
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(""), &out, &errb
	m.Env = []string{"RECUR_STORAGE_DATA_DIR=" + t.TempDir(), "RECUR_OLLAMA_URL=http://127.0.0.1:1"}
	code = m.Exec(context.Background(), args)
	return code, out.String(), errb.String()
}

// TestUsageErrors: every mistake on the command line exits 2 with a last
// line saying which help to read; --version prints what recur version does.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		help string // the command the last line of stderr must name
	}{
		{"NoCommand", nil, "recur help"},
		{"UnknownCommand", []string{"frobnicate"}, "recur help"},
		{"UnknownFlag", []string{"backup", "--frob", "x.tar.gz"}, "recur help backup"},
		{"UnknownTopFlag", []string{"--frob"}, "recur help"},
		{"MissingArgument", []string{"backup"}, "recur help backup"},
		{"ExtraArgument", []string{"version", "now"}, "recur help version"},
		{"UnknownSubcommand", []string{"user", "frob"}, "recur help user"},
		{"MissingSubcommand", []string{"token"}, "recur help token"},
		{"SubcommandMissingArgument", []string{"token", "create"}, "recur help token create"},
		{"UnknownMigrateAction", []string{"migrate", "sideways"}, "recur help migrate"},
		{"BadFlagValue", []string{"token", "create", "a@example.com", "--expires", "soon"}, "recur help token create"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := execute(t, c.args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if code != 2 || !strings.HasPrefix(last, "recur: ") || !strings.Contains(last, "run "+c.help) {
				t.Errorf("recur %s: exit %d, last line %q; want exit 2 and a line saying run %s\nstderr:\n%s",
					strings.Join(c.args, " "), code, last, c.help, stderr)
			}
		})
	}
	t.Run("HelpCommand", func(t *testing.T) {
		code, stdout, stderr := execute(t, "help", "backup")
		if code != 0 || !strings.Contains(stdout+stderr, "Usage: recur backup FILE") {
			t.Errorf("recur help backup: exit %d %q %q, want 0 and the backup command's usage", code, stdout, stderr)
		}
	})
	t.Run("Version", func(t *testing.T) {
		_, want, _ := execute(t, "version")
		for _, flag := range []string{"--version", "-version"} {
			code, got, stderr := execute(t, flag)
			if code != 0 || got != want || !strings.HasPrefix(got, "recur ") {
				t.Errorf("recur %s: exit %d, %q (stderr %q); want exit 0 and what recur version prints, %q", flag, code, got, stderr, want)
			}
		}
	})
	t.Run("RunErrorExits1", func(t *testing.T) {
		if code, _, stderr := execute(t, "user", "list"); code != 1 || !strings.Contains(stderr, "recur: ") {
			t.Errorf("recur user list without a database: exit %d %q, want 1: not a usage error", code, stderr)
		}
	})
}
