package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/recur-journal/recur/store"
)

const usage = `Recur: a private journal that notices what keeps coming back.

Usage:
  recur serve [--config FILE]             start the server (migrates the database first)
  recur migrate up|down|status            apply, roll back one, or list database migrations
  recur user add|list|delete|set-password|unlock
                                          manage accounts (recur user --help)
  recur token create|list|revoke          manage bearer tokens (recur token --help)
  recur feedback list                     read the feedback users sent
  recur import PATH --user EMAIL [--no-wait]
                                          import a Day One, jrnl, Markdown or Recur export and
                                          analyse it, showing progress
  recur export --user EMAIL [--output FILE]
                                          write everything of the user's journal as JSON
  recur backup FILE                       write the database and secret.key to one archive
  recur restore ARCHIVE                   bring a backup back into an empty data folder
  recur doctor                            check the configuration, the database and Ollama
  recur eval [JOURNAL...] [--ollama URL] [--model NAME] [--json FILE]
                                          measure a model on labelled journals (no database needed)
  recur health [--url URL]                ask the running server whether it is healthy
  recur version                           print the version, commit and commit time

Every command takes --config FILE (default ./recur.toml when present).
Every key can also be set with RECUR_<SECTION>_<KEY>, such as RECUR_SERVER_ADDR.
Only serve and migrate make a new database; the others need an existing one.
Run "recur help COMMAND" (or "recur COMMAND --help") for a command's options;
"recur --version" is "recur version". A mistake on the command line exits 2.
`

// ParseFlags reads the command line and picks the command Run will run.
func (m *Main) ParseFlags(args []string) error {
	if len(args) > 1 && args[0] == "help" {
		// recur help COMMAND is recur COMMAND --help.
		return m.ParseFlags(append(slices.Clone(args[1:]), "--help"))
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			fmt.Fprint(m.Stderr, usage)
			return errors.New("no command given; run recur help to see the commands")
		}
		fmt.Fprint(m.Stdout, usage)
		return flag.ErrHelp
	}
	name, rest := args[0], args[1:]
	if name == "--version" || name == "-version" {
		name = "version"
	}
	switch name {
	case "serve":
		m.mayCreateDB = true
		m.reloads = true
		return m.parse("serve", "Start the server. It migrates the database first, reloads its configuration on SIGHUP and stops on SIGINT or SIGTERM.", rest, 0, 0, nil,
			func([]string) { m.command = m.serve })
	case "migrate":
		m.mayCreateDB = true
		return m.parseMigrate(rest)
	case "user", "token", "feedback":
		return m.parseGroup(name, rest)
	case "import":
		return m.parseImport(rest)
	case "export":
		return m.parseExport(rest)
	case "backup":
		return m.parse("backup FILE", backupAbout, rest, 1, 1, nil,
			func(pos []string) { m.command = func(ctx context.Context) error { return m.backup(ctx, pos[0]) } })
	case "restore":
		var identity string
		return m.parse("restore ARCHIVE", restoreAbout, rest, 1, 1,
			func(fs *flag.FlagSet) {
				fs.StringVar(&identity, "identity", "", "the `FILE` holding the age secret key of an encrypted archive")
			},
			func(pos []string) {
				m.command = func(ctx context.Context) error { return m.restore(ctx, pos[0], identity) }
			})
	case "doctor":
		return m.parse("doctor", "Check the configuration, the database and whether Ollama answers and has the model.", rest, 0, 0, nil,
			func([]string) { m.command = m.doctor })
	case "version":
		return m.parse("version", "Print the version, the commit it was built from and that commit's time.", rest, 0, 0, nil, func([]string) {
			m.command = func(context.Context) error { return m.readBuild().print(m.Stdout) }
		})
	case "health":
		return m.parseHealth(rest)
	case "eval":
		return m.parseEval(rest)
	}
	return fmt.Errorf("unknown command %q; run recur help to see the commands", name)
}

// commandGroup is a command made of subcommands, such as recur user.
type commandGroup struct {
	name, about string
	subs        []subcommand
}

// subcommand is one command of a group: its synopsis after the group's
// name, a line saying what it does, and how its arguments are parsed.
type subcommand struct {
	synopsis, summary string
	parse             func(args []string) error
}

func (c subcommand) name() string { return strings.Fields(c.synopsis)[0] }

// groups lists the commands made of subcommands.
func (m *Main) groups() map[string]commandGroup {
	return map[string]commandGroup{
		"user": {"user", "Manage the accounts of this server.", []subcommand{
			{"add EMAIL [--name NAME] [--password-stdin]", "create a user; prints the new user's id", m.parseUserAdd},
			{"list [--json]", "list every user with their entries and whether two-factor is on", m.parseUserList},
			{"delete EMAIL [--yes]", "delete a user and everything of theirs, after asking", m.parseUserDelete},
			{"set-password EMAIL", "set a user's password from standard input and sign them out of every browser", m.parseSetPassword},
			{"unlock EMAIL", "lift the pause on signing in that too many wrong passwords or codes put on an account", m.parseUserUnlock},
		}},
		"token": {"token", "Manage bearer tokens, the keys scripts and apps call the API with.", []subcommand{
			{"create EMAIL [--name NAME] [--scopes a,b] [--expires 720h]", "create a bearer token; prints the token and nothing else", m.parseTokenCreate},
			{"list EMAIL [--json]", "list a user's tokens that are not revoked (never their secrets)", m.parseTokenList},
			{"revoke ID", "revoke a token at once, whoever holds it", m.parseTokenRevoke},
		}},
		"feedback": {"feedback", "Read what users sent with the app's feedback form.", []subcommand{
			{"list [--json]", "list every feedback note, newest first, with the sender's address", m.parseFeedbackList},
		}},
	}
}

// parseGroup picks the group's subcommand named by args[0]. Help for the
// group lists its subcommands.
func (m *Main) parseGroup(name string, args []string) error {
	g := m.groups()[name]
	if len(args) == 0 {
		return fmt.Errorf("recur %s: say which command; run recur help %s to see them", g.name, g.name)
	}
	if a := args[0]; a == "-h" || a == "-help" || a == "--help" || a == "help" {
		m.groupUsage(m.Stdout, g)
		return flag.ErrHelp
	}
	for _, c := range g.subs {
		if c.name() == args[0] {
			return c.parse(args[1:])
		}
	}
	return fmt.Errorf("unknown command %q; run recur help %s to see the commands", g.name+" "+args[0], g.name)
}

func (m *Main) groupUsage(w io.Writer, g commandGroup) {
	fmt.Fprintf(w, "Usage: recur %s COMMAND [flags]\n\n%s\n\nCommands:\n", g.name, g.about)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range g.subs {
		fmt.Fprintf(tw, "  recur %s %s\t%s\n", g.name, c.synopsis, c.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nEvery command takes --config FILE. Run \"recur help %s COMMAND\" for a command's options.\n", g.name)
}

// parse parses a command's flags, which may come before or after its
// positional arguments, and checks their number. Its usage is printed for
// --help; a mistake gives one line naming it and the help to read.
func (m *Main) parse(synopsis, about string, args []string, minPos, maxPos int, define func(*flag.FlagSet), done func([]string)) error {
	fs := flag.NewFlagSet(synopsis, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the mistake is told in the error, in one line
	fs.StringVar(&m.ConfigPath, "config", "", "configuration `FILE` (default ./recur.toml when present)")
	if define != nil {
		define(fs)
	}
	fs.Usage = func() {}
	help := "run recur help " + commandName(synopsis)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(m.Stderr, "Usage: recur %s [flags]\n\n%s\n\nFlags:\n", synopsis, about)
			fs.SetOutput(m.Stderr)
			fs.PrintDefaults()
			return err
		} else if err != nil {
			return fmt.Errorf("recur %s: %w; %s", commandName(synopsis), err, help)
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) < minPos || len(pos) > maxPos {
		return fmt.Errorf("recur %s: %s; %s", synopsis, argCount(minPos, maxPos, len(pos)), help)
	}
	done(pos)
	return nil
}

// commandName is the command a synopsis names: its leading lower-case
// words, "token create" of "token create EMAIL".
func commandName(synopsis string) string {
	var words []string
	for _, w := range strings.Fields(synopsis) {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz-") != "" {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// argCount says what is wrong with the number of arguments given.
func argCount(minPos, maxPos, given int) string {
	switch {
	case given < minPos:
		return "an argument is missing"
	case maxPos == 0:
		return fmt.Sprintf("it takes no arguments, and %d were given", given)
	}
	return fmt.Sprintf("too many arguments (%d given)", given)
}

// cliError turns a coded error into a sentence for the terminal.
func cliError(err error) error {
	if code := store.ErrorCode(err); code != store.EINTERNAL {
		return errors.New(store.ErrorMessage(err))
	}
	return err
}
