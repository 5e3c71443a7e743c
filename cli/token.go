package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

func (m *Main) parseTokenCreate(args []string) error {
	var name, scopes string
	var expires durationFlag
	return m.parse("token create EMAIL", "Create a bearer token for the user and print it, and nothing else, on standard output. It is shown once.", args, 1, 1,
		func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "cli", "a `NAME` to tell the token apart")
			fs.StringVar(&scopes, "scopes", "*", "comma-separated scopes; * grants all ("+strings.Join(account.ScopeNames(), ", ")+")")
			fs.Var(&expires, "expires", "lifetime such as 720h; 0 never expires (default [auth] token_lifetime)")
		},
		func(pos []string) {
			m.command = func(ctx context.Context) error {
				list, err := account.ParseScopes(scopes)
				if err != nil {
					return err
				}
				if err := m.openStore(ctx, true); err != nil {
					return err
				}
				u, err := m.userByEmail(ctx, pos[0])
				if err != nil {
					return err
				}
				lifetime := m.Config.Auth.TokenLifetime.Duration
				if expires.set {
					lifetime = expires.d
				}
				t := store.Token{UserID: u.ID, Name: name, Scopes: list}
				if lifetime > 0 {
					at := m.store.Now().Add(lifetime)
					t.ExpiresAt = &at
				}
				plain, err := m.store.CreateToken(ctx, &t)
				if err != nil {
					return cliError(err)
				}
				_, err = fmt.Fprintln(m.Stdout, plain)
				return err
			}
		})
}

// durationFlag is a flag holding a duration and whether it was given.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.d.String() }

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration like 720h", s)
	}
	f.d, f.set = d, true
	return nil
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
