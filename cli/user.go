package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/recur-journal/recur/store"
)

func (m *Main) parseUserAdd(args []string) error {
	var name string
	var passwordStdin bool
	return m.parse("user add EMAIL", "Create a user and print their id. Without a password the user signs in by mailed link or code.", args, 1, 1,
		func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "", "the user's display `NAME`")
			fs.BoolVar(&passwordStdin, "password-stdin", false, "read a password (at least 8 characters) from the first line of standard input")
		},
		func(pos []string) {
			m.command = func(ctx context.Context) error {
				u := store.User{Email: pos[0], Name: name}
				if passwordStdin {
					var err error
					if u.PasswordHash, err = readPassword(m.Stdin); err != nil {
						return err
					}
				}
				if err := m.openStore(ctx, true); err != nil {
					return err
				}
				if err := m.store.CreateUser(ctx, &u); err != nil {
					return cliError(err)
				}
				_, err := fmt.Fprintln(m.Stdout, u.ID)
				return err
			}
		})
}

func (m *Main) parseUserList(args []string) error {
	var asJSON bool
	return m.parse("user list", "List every user: address, name, id, when the account was made, how many entries it holds and whether two-factor is on.", args, 0, 0,
		func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print a JSON array instead of a table") },
		func([]string) { m.command = func(ctx context.Context) error { return m.userList(ctx, asJSON) } })
}

func (m *Main) userList(ctx context.Context, asJSON bool) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	users, err := m.store.ListUsers(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		type user struct {
			ID        string `json:"id"`
			Email     string `json:"email"`
			Name      string `json:"name"`
			CreatedAt string `json:"created_at"`
			Entries   int    `json:"entries"`
			TwoFactor bool   `json:"two_factor"`
			Password  bool   `json:"password"`
		}
		out := make([]user, 0, len(users))
		for _, u := range users {
			out = append(out, user{u.ID, u.Email, u.Name, store.FormatTime(u.CreatedAt), u.Captures, u.TwoFactor(), u.PasswordHash != ""})
		}
		return writeJSON(m.Stdout, out)
	}
	if len(users) == 0 {
		fmt.Fprintln(m.Stderr, "No users yet; add one with: recur user add EMAIL")
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tNAME\tID\tCREATED\tENTRIES\tTWO-FACTOR")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", cell(u.Email), cell(u.Name), u.ID, shortTime(u.CreatedAt), u.Captures, onOff(u.TwoFactor()))
	}
	return tw.Flush()
}

const userDeleteAbout = `Delete the user and everything of theirs: entries and all found in them,
patterns, tokens, apps, browser sessions, settings, feedback and imports. It
cannot be undone: make a backup first (recur backup FILE). At a terminal it
asks first; elsewhere it needs --yes.`

func (m *Main) parseUserDelete(args []string) error {
	var yes bool
	return m.parse("user delete EMAIL", userDeleteAbout, args, 1, 1,
		func(fs *flag.FlagSet) { fs.BoolVar(&yes, "yes", false, "delete without asking") },
		func(pos []string) {
			m.command = func(ctx context.Context) error { return m.userDelete(ctx, pos[0], yes) }
		})
}

func (m *Main) userDelete(ctx context.Context, email string, yes bool) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	if !yes {
		if !isTerminal(m.Stdin) {
			return fmt.Errorf("nothing was deleted: add --yes to delete %s without being asked", u.Email)
		}
		q := fmt.Sprintf("Delete %s and everything of theirs? This cannot be undone. Type yes to delete: ", u.Email)
		if !confirm(m.Stdin, m.Stderr, q) {
			return errors.New("nothing was deleted")
		}
	}
	r, err := m.store.DeleteUser(ctx, u.ID)
	if err != nil {
		return cliError(err)
	}
	var removed []string
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{r.Captures, "entry", "entries"}, {r.Patterns, "pattern", "patterns"}, {r.Tokens, "token", "tokens"},
		{r.Apps, "app", "apps"}, {r.Sessions, "browser session", "browser sessions"}, {r.Settings, "setting", "settings"},
		{r.Feedback, "feedback note", "feedback notes"}, {r.Batches, "import", "imports"},
	} {
		if c.n > 0 {
			removed = append(removed, counted(c.n, c.one, c.many))
		}
	}
	if len(removed) == 0 {
		_, err = fmt.Fprintf(m.Stdout, "Deleted %s, who had nothing else stored.\n", u.Email)
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "Deleted %s and their %s.\n", u.Email, strings.Join(removed, ", "))
	return err
}

const setPasswordAbout = `Set the user's password to the first line of standard input (at least 8
characters), for example: printf '%s\n' "$PASSWORD" | recur user set-password EMAIL
The user is signed out of every browser, so a session opened with the old
password ends. Their tokens and apps keep working: see recur token list EMAIL.`

func (m *Main) parseSetPassword(args []string) error {
	return m.parse("user set-password EMAIL", setPasswordAbout, args, 1, 1, nil,
		func(pos []string) { m.command = func(ctx context.Context) error { return m.setPassword(ctx, pos[0]) } })
}

func (m *Main) setPassword(ctx context.Context, email string) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	if isTerminal(m.Stdin) {
		fmt.Fprint(m.Stderr, "New password (it shows as you type; pipe it in to hide it): ")
	}
	hash, err := readPassword(m.Stdin)
	if err != nil {
		return err
	}
	if err := m.store.SetPasswordHash(ctx, u.ID, hash); err != nil {
		return cliError(err)
	}
	n, err := m.store.DeleteUserSessions(ctx, u.ID)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "Set the password of %s and signed them out of %s. Their tokens and apps keep working.\n",
		u.Email, counted(n, "browser session", "browser sessions"))
	return err
}

const unlockAbout = `Lift the pause on signing in that too many wrong passwords or two-factor
codes put on the user's account (15 minutes after 10 wrong passwords, or 5
wrong two-factor codes, from any addresses), and forget the wrong tries.`

func (m *Main) parseUserUnlock(args []string) error {
	return m.parse("user unlock EMAIL", unlockAbout, args, 1, 1, nil,
		func(pos []string) { m.command = func(ctx context.Context) error { return m.userUnlock(ctx, pos[0]) } })
}

func (m *Main) userUnlock(ctx context.Context, email string) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	locked, err := m.store.UnlockUser(ctx, u.ID)
	if err != nil {
		return cliError(err)
	}
	if !locked {
		_, err = fmt.Fprintf(m.Stdout, "%s was not locked; their wrong tries are forgotten.\n", u.Email)
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "Unlocked %s: they can sign in with their password and two-factor code again.\n", u.Email)
	return err
}
