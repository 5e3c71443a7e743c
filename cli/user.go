package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/recur-journal/recur/store"
)

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

func (m *Main) parseTokenList(args []string) error {
	var asJSON bool
	return m.parse("token list EMAIL", "List the user's tokens that are not revoked, newest first: id, name, scopes, last use, expiry and whether an app holds it. Secrets are never stored, so never shown.", args, 1, 1,
		func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print a JSON array instead of a table") },
		func(pos []string) {
			m.command = func(ctx context.Context) error { return m.tokenList(ctx, pos[0], asJSON) }
		})
}

func (m *Main) tokenList(ctx context.Context, email string, asJSON bool) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	u, err := m.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	tokens, err := m.store.ListTokens(ctx, u.ID)
	if err != nil {
		return err
	}
	if asJSON {
		type token struct {
			ID         string   `json:"id"`
			Name       string   `json:"name"`
			Scopes     []string `json:"scopes"`
			LastUsedAt *string  `json:"last_used_at"`
			ExpiresAt  *string  `json:"expires_at"`
			App        bool     `json:"app"`
			CreatedAt  string   `json:"created_at"`
		}
		out := make([]token, 0, len(tokens))
		for _, t := range tokens {
			out = append(out, token{t.ID, t.Name, t.Scopes, jsonTime(t.LastUsedAt), jsonTime(t.ExpiresAt), t.App, store.FormatTime(t.CreatedAt)})
		}
		return writeJSON(m.Stdout, out)
	}
	if len(tokens) == 0 {
		fmt.Fprintf(m.Stderr, "%s has no tokens; make one with: recur token create %s\n", u.Email, u.Email)
		return nil
	}
	now := m.store.Now()
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPES\tLAST USED\tEXPIRES\tAPP")
	for _, t := range tokens {
		expires := "never"
		if t.ExpiresAt != nil {
			expires = shortTime(*t.ExpiresAt)
			if !now.Before(*t.ExpiresAt) {
				expires += " (expired)"
			}
		}
		lastUsed := "never"
		if t.LastUsedAt != nil {
			lastUsed = shortTime(*t.LastUsedAt)
		}
		app := "no"
		if t.App {
			app = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, cell(t.Name), strings.Join(t.Scopes, ","), lastUsed, expires, app)
	}
	return tw.Flush()
}

func (m *Main) parseTokenRevoke(args []string) error {
	return m.parse("token revoke ID", "Revoke the token ID (the part of a token before the |, as recur token list shows it). It is refused from the next request on.", args, 1, 1, nil,
		func(pos []string) { m.command = func(ctx context.Context) error { return m.tokenRevoke(ctx, pos[0]) } })
}

func (m *Main) tokenRevoke(ctx context.Context, id string) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	id, _, _ = strings.Cut(strings.TrimSpace(id), "|") // a whole token names its id too
	t, err := m.store.RevokeTokenByID(ctx, id)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return fmt.Errorf("no live token has the id %q; see the ids with: recur token list EMAIL", id)
	} else if err != nil {
		return err
	}
	owner := t.UserID
	if u, err := m.store.FindUserByID(ctx, t.UserID); err == nil {
		owner = u.Email
	}
	what := "token"
	if t.App {
		what = "app's token"
	}
	_, err = fmt.Fprintf(m.Stdout, "Revoked the %s %s (%s) of %s.\n", what, t.ID, cell(t.Name), owner)
	return err
}

func (m *Main) parseFeedbackList(args []string) error {
	var asJSON bool
	return m.parse("feedback list", "List every feedback note users sent, newest first, with the sender's address.", args, 0, 0,
		func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print a JSON array instead of text") },
		func([]string) { m.command = func(ctx context.Context) error { return m.feedbackList(ctx, asJSON) } })
}

func (m *Main) feedbackList(ctx context.Context, asJSON bool) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	list, err := m.store.ListAllFeedback(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		type feedback struct {
			ID        string `json:"id"`
			Email     string `json:"email"`
			Feedback  string `json:"feedback"`
			CreatedAt string `json:"created_at"`
		}
		out := make([]feedback, 0, len(list))
		for _, f := range list {
			out = append(out, feedback{f.ID, f.Email, f.Body, store.FormatTime(f.CreatedAt)})
		}
		return writeJSON(m.Stdout, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(m.Stderr, "No feedback yet.")
		return nil
	}
	for i, f := range list {
		if i > 0 {
			fmt.Fprintln(m.Stdout)
		}
		fmt.Fprintf(m.Stdout, "%s  %s\n", shortTime(f.CreatedAt), cell(f.Email))
		for _, line := range strings.Split(strings.TrimSpace(f.Body), "\n") {
			fmt.Fprintf(m.Stdout, "    %s\n", cell(line))
		}
	}
	return nil
}

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
func counted(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
