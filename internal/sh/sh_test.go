package sh

import (
	"slices"
	"strings"
	"testing"
)

func TestRecurRunsRecursOwnCommands(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"compose's CMD, as podman-compose 1.0 passes it to podman, run through sh by podman", []string{"-c", `/bin/sh -c recur' 'health`}, []string{"health"}},
		{"a plain command line", []string{"-c", "recur health"}, []string{"health"}},
		{"the full path", []string{"-c", "/usr/local/bin/recur health"}, []string{"health"}},
		{"exec in front", []string{"-c", "exec recur health"}, []string{"health"}},
		{"quoted words", []string{"-c", `recur user add "a b@example.com" 'c d'`}, []string{"user", "add", "a b@example.com", "c d"}},
		{"backslashes", []string{"-c", `recur x\ y "q\"r"`}, []string{"x y", `q"r`}},
		{"arguments after the command are its $0 and $1, not read", []string{"-c", "recur health", "sh", "extra"}, []string{"health"}},
		{"recur alone", []string{"-c", "recur"}, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr strings.Builder
			got, code := Recur(c.args, &stderr)
			if got == nil || !slices.Equal(got, c.want) || code != 0 {
				t.Errorf("Recur(%q) = %q, %d (%s), want %q", c.args, got, code, stderr.String(), c.want)
			}
		})
	}
}

func TestRecurRunsNothingElse(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"-c", "cat /etc/passwd"}, NotFound},
		{[]string{"-c", "/bin/sh -c 'wget http://example.com'"}, NotFound},
		{[]string{"-c", "recur health; cat /etc/passwd"}, 2},
		{[]string{"-c", "recur health && rm -rf /data"}, 2},
		{[]string{"-c", "recur health | nc 127.0.0.1 1"}, 2},
		{[]string{"-c", "recur $(id)"}, 2},
		{[]string{"-c", `recur "$HOME"`}, 2},
		{[]string{"-c", "recur `id`"}, 2},
		{[]string{"-c", "recur health > /tmp/x"}, 2},
		{[]string{"-c", "recur 'unclosed"}, 2},
		{[]string{"-c", ""}, 2},
		{[]string{}, 2},
		{[]string{"-i"}, 2},
		{[]string{"script.sh"}, 2},
	} {
		var stderr strings.Builder
		got, code := Recur(c.args, &stderr)
		if got != nil || code != c.code {
			t.Errorf("Recur(%q) = %q, %d, want nothing run and exit %d", c.args, got, code, c.code)
		}
		if !strings.Contains(stderr.String(), "runs only recur's own commands") {
			t.Errorf("Recur(%q) said %q, want a sentence saying what sh runs", c.args, stderr.String())
		}
	}
}
