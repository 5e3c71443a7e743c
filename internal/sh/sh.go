// Package sh is the /bin/sh of Recur's container image, which has no
// shell. Some container tools run a health check only through one:
// podman-compose 1.0 turns compose.yaml's ["CMD", "recur", "health"] into
// /bin/sh -c 'recur health', and podman runs that through /bin/sh -c once
// more. In the image, /bin/sh is a link to the recur binary, which, started
// under that name, reads the command line a shell would be given and runs
// it if it is one of recur's own commands. Nothing else runs: no other
// program, and no shell syntax (pipes, redirections, variables, globs).
package sh

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// NotFound is the exit status of a command sh does not run, as a shell
// answers for a program it cannot find.
const NotFound = 127

// Recur reads the arguments sh was started with (without its own name) and
// returns the arguments of the recur command they name. When they name
// none, it says why on stderr and returns nil and the exit status.
func Recur(args []string, stderr io.Writer) ([]string, int) {
	words, err := command(args)
	if err != nil {
		fmt.Fprintf(stderr, "sh: %v\nThis image has no shell: its sh runs only recur's own commands, such as sh -c 'recur health'. Run recur directly: recur --help.\n", err)
		if errors.Is(err, errNotRecur) {
			return nil, NotFound
		}
		return nil, 2
	}
	return words, 0
}

var errNotRecur = errors.New("not a recur command")

// command finds the recur command in sh's arguments, through any number
// of sh -c and exec in front of it.
func command(args []string) ([]string, error) {
	for range 8 {
		if len(args) < 2 || args[0] != "-c" {
			return nil, fmt.Errorf("only sh -c COMMAND is understood, not sh %s", strings.Join(args, " "))
		}
		// Words after the command (its $0, $1, ...) are not read, as a
		// shell reads them only through variables.
		words, err := split(args[1])
		if err != nil {
			return nil, err
		}
		for len(words) > 0 && words[0] == "exec" {
			words = words[1:]
		}
		if len(words) == 0 {
			return nil, errors.New("the command is empty")
		}
		switch path.Base(words[0]) {
		case "recur":
			return words[1:], nil
		case "sh":
			args = words[1:]
		default:
			return nil, fmt.Errorf("%s: %w", words[0], errNotRecur)
		}
	}
	return nil, errors.New("sh -c nested too deep")
}

// split cuts a command line into words as a POSIX shell does for plain
// words and quotes: blanks separate, '…' keeps everything, "…" keeps all but
// \" \\ \$ \` (taken literally after the backslash), and a backslash outside
// quotes keeps the next character. Anything a shell would expand or treat as
// an operator is refused, quoted or not where a shell would act on it.
func split(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a quote (') is not closed")
			}
			word.WriteString(line[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
					i++
				case line[i] == '$' || line[i] == '`':
					return nil, fmt.Errorf("%q: variables and substitutions are not supported", line)
				}
				word.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, errors.New(`a quote (") is not closed`)
			}
			inWord = true
		case c == '\\':
			if i+1 < len(line) {
				i++
				word.WriteByte(line[i])
			}
			inWord = true
		case strings.IndexByte("|&;<>()$`*?[#~{}", c) >= 0:
			return nil, fmt.Errorf("%q: shell syntax (%c) is not supported", line, c)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
