package cli

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store/storetest"
)

// migratedDir puts a migrated database into the data folder dir, as the
// first recur serve would make, and returns dir: a copy of the one this
// test binary migrated once (storetest.MigratedDataDir), which spares each
// test applying every migration. The tests of recur migrate itself, and of
// what the commands make of an empty folder, start from nothing.
func migratedDir(t *testing.T, dir string) string {
	t.Helper()
	return storetest.MigratedDataDir(t, dir)
}

// signIn signs email in with password in a new browser (a cookie jar) and
// returns a client riding on its session.
func signIn(t *testing.T, base, email, password string) apiClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := apiClient{T: t, Base: base, HTTP: &http.Client{Jar: jar}}
	if status, body := c.Do("POST", "/login", `{"email":"`+email+`","password":"`+password+`"}`); status != 200 && status != 204 {
		t.Fatalf("sign in as %s: %d %v", email, status, body)
	}
	if status, _ := c.Do("GET", "/users/me", ""); status != 200 {
		t.Fatalf("the session of %s answers %d", email, status)
	}
	return c
}

// tableCounts counts the rows of every table of the database at path, but
// the full-text index, whose inner tables keep their own bookkeeping.
func tableCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'captures_search%'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	counts := map[string]int{}
	for _, n := range names {
		var c int
		if err := db.QueryRow(`SELECT count(*) FROM "` + n + `"`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		counts[n] = c
	}
	return counts
}

// corpusAsJrnl writes the pipeline's test journal, whose entries make
// patterns, as a jrnl export and returns its path.
func corpusAsJrnl(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("pipeline", "testdata", "journal.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []struct {
		OccurredAt time.Time `json:"occurred_at"`
		Text       string    `json:"text"`
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Date  string `json:"date"`
		Time  string `json:"time"`
	}
	var doc struct {
		Entries []entry `json:"entries"`
	}
	for _, c := range corpus {
		doc.Entries = append(doc.Entries, entry{Body: c.Text, Date: c.OccurredAt.Format("2006-01-02"), Time: c.OccurredAt.Format("15:04")})
	}
	path := filepath.Join(t.TempDir(), "journal.json")
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUserDelete fills an account with everything a person makes (analysed
// entries and their patterns, tokens, an app, a session, a setting,
// feedback) beside another account, deletes it with the command line, and
// finds the database as it was before the account came: every row of the
// user went, nothing of the other user did.
func TestUserDelete(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	_, fake, base := startServer(t, dir)
	env := []string{"RECUR_STORAGE_DATA_DIR=" + dir, "RECUR_OLLAMA_URL=" + fake.URL(), "RECUR_LOG_LEVEL=error"}
	journal := corpusAsJrnl(t)
	account := func(email string) (apiClient, apiClient) {
		if _, _, err := runEnv(t, env, "a long password\n", "user", "add", email, "--password-stdin"); err != nil {
			t.Fatal(err)
		}
		if _, progress, err := runEnv(t, env, "", "import", journal, "--user", email); err != nil {
			t.Fatalf("import: %v\n%s", err, progress)
		}
		token, _, err := runEnv(t, env, "", "token", "create", email)
		if err != nil {
			t.Fatal(err)
		}
		api := apiClient{T: t, Base: base, Token: strings.TrimSpace(token)}
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/apps", `{"name":"Phone","scopes":["captures:write"]}`},
			{"POST", "/feedback", `{"feedback":"Lovely."}`},
			{"PUT", "/settings/me/timezone", `{"value":"Europe/Lisbon"}`},
		} {
			if status, body := api.Do(c.method, c.path, c.body); status >= 300 {
				t.Fatalf("%s %s: %d %v", c.method, c.path, status, body)
			}
		}
		return api, signIn(t, base, email, "a long password")
	}
	_, keptSession := account("kept@example.com")
	before := tableCounts(t, filepath.Join(dir, "recur.db"))
	goneToken, goneSession := account("gone@example.com")

	if _, _, err := runEnv(t, env, "", "user", "delete", "gone@example.com"); err == nil || !strings.Contains(err.Error(), "--yes") {
		t.Fatalf("delete without --yes away from a terminal: %v, want a refusal naming --yes", err)
	}
	if status, _ := goneToken.Do("GET", "/users/me", ""); status != 200 {
		t.Fatalf("a refused delete removed the account: %d", status)
	}

	out, _, err := runEnv(t, env, "", "user", "delete", " Gone@Example.com", "--yes")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Deleted gone@example.com and their ", "28 entries", " patterns", "1 token", "1 app,", "1 browser session,", "1 setting", "1 feedback note", "1 import."} {
		if !strings.Contains(out, want) {
			t.Errorf("delete said %q, want %q in it", out, want)
		}
	}
	for name, c := range map[string]apiClient{"token": goneToken, "session": goneSession} {
		if status, _ := c.Do("GET", "/users/me", ""); status != 401 {
			t.Errorf("the deleted user's %s answers %d, want 401", name, status)
		}
	}
	if status, _ := keptSession.Do("GET", "/users/me", ""); status != 200 {
		t.Errorf("the other user's session answers %d after the delete", status)
	}
	if after := tableCounts(t, filepath.Join(dir, "recur.db")); !reflect.DeepEqual(after, before) {
		t.Errorf("rows per table before the user came and after they were deleted differ:\n%v\n%v", before, after)
	}
	if _, _, err := runEnv(t, env, "", "user", "delete", "gone@example.com", "--yes"); err == nil || !strings.Contains(err.Error(), "no user has the address") {
		t.Errorf("deleting again: %v", err)
	}
}

// TestUserListAndSetPassword lists users with their entries and two-factor
// state, and sets a password: the new one signs in, the old one no longer
// does, browsers are signed out and tokens keep working.
func TestUserListAndSetPassword(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	_, _, base := startServer(t, dir)
	if _, _, err := run(t, dir, "first password\n", "user", "add", "ana@example.com", "--name", "Ana\x1b[2J", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, dir, "", "user", "add", "ben@example.com"); err != nil {
		t.Fatal(err)
	}
	token, _, _ := run(t, dir, "", "token", "create", "ana@example.com")
	api := apiClient{T: t, Base: base, Token: strings.TrimSpace(token)}
	if status, body := api.Do("POST", "/captures", `{"text":"A walk by the river."}`); status != 201 {
		t.Fatalf("POST /captures: %d %v", status, body)
	}

	t.Run("List", func(t *testing.T) {
		out, _, err := run(t, dir, "", "user", "list")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || !strings.Contains(lines[0], "EMAIL") || !strings.Contains(lines[0], "TWO-FACTOR") {
			t.Fatalf("user list printed:\n%s", out)
		}
		if f := strings.Fields(lines[1]); f[0] != "ana@example.com" || f[len(f)-2] != "1" || f[len(f)-1] != "off" {
			t.Errorf("ana's row is %q, want her address, 1 entry, two-factor off", lines[1])
		}
		if f := strings.Fields(lines[2]); f[0] != "ben@example.com" || f[len(f)-2] != "0" {
			t.Errorf("ben's row is %q, want 0 entries", lines[2])
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("a name's escape sequence reached the terminal: %q", out)
		}
		js, _, err := run(t, dir, "", "user", "list", "--json")
		if err != nil || !strings.Contains(js, `"email": "ana@example.com"`) || !strings.Contains(js, `"entries": 1`) {
			t.Errorf("user list --json printed %s, %v", js, err)
		}
	})
	t.Run("DeleteEmptyAccount", func(t *testing.T) {
		out, _, err := run(t, dir, "", "user", "delete", "ben@example.com", "--yes")
		if err != nil || out != "Deleted ben@example.com, who had nothing else stored.\n" {
			t.Errorf("delete said %q, %v", out, err)
		}
	})
	t.Run("SetPassword", func(t *testing.T) {
		browser := signIn(t, base, "ana@example.com", "first password")
		if _, _, err := run(t, dir, "short\n", "user", "set-password", "ana@example.com"); err == nil || !strings.Contains(err.Error(), "at least 8") {
			t.Fatalf("a short password: %v", err)
		}
		if status, _ := browser.Do("GET", "/users/me", ""); status != 200 {
			t.Fatalf("a refused password change signed the browser out: %d", status)
		}
		out, _, err := run(t, dir, "second password\n", "user", "set-password", "ana@example.com")
		if err != nil || !strings.Contains(out, "signed them out of 1 browser session") {
			t.Fatalf("set-password said %q, %v", out, err)
		}
		if status, _ := browser.Do("GET", "/users/me", ""); status != 401 {
			t.Errorf("the browser signed in before answers %d, want 401", status)
		}
		if status, _ := api.Do("GET", "/users/me", ""); status != 200 {
			t.Errorf("the token answers %d after a password change, want 200", status)
		}
		jar, _ := cookiejar.New(nil)
		old := apiClient{T: t, Base: base, HTTP: &http.Client{Jar: jar}}
		if status, _ := old.Do("POST", "/login", `{"email":"ana@example.com","password":"first password"}`); status < 400 {
			t.Errorf("the old password still signs in: %d", status)
		}
		signIn(t, base, "ana@example.com", "second password")
		if _, _, err := run(t, dir, "third password\n", "user", "set-password", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no user has the address") {
			t.Errorf("unknown user: %v", err)
		}
	})
}

// ownerCommands holds arguments that run each command needing a database,
// keyed by the command's name.
var ownerCommands = map[string][]string{
	"user add":          {"user", "add", "a@example.com"},
	"user list":         {"user", "list"},
	"user delete":       {"user", "delete", "a@example.com", "--yes"},
	"user set-password": {"user", "set-password", "a@example.com"},
	"user unlock":       {"user", "unlock", "a@example.com"},
	"token create":      {"token", "create", "a@example.com"},
	"token list":        {"token", "list", "a@example.com"},
	"token revoke":      {"token", "revoke", "0190e7a0-0000-7000-8000-000000000000"},
	"feedback list":     {"feedback", "list"},
	"import":            {"import", filepath.Join("importer", "testdata", "jrnl.json"), "--user", "a@example.com"},
	"export":            {"export", "--user", "a@example.com"},
	"backup":            {"backup", "backup.tar.gz"},
	"doctor":            {"doctor"},
}

// TestCommandsNeedADatabase runs every command but serve, migrate and
// restore against a data folder with no database: each says where it
// looked and how to point it elsewhere, fails, and leaves no file behind.
func TestCommandsNeedADatabase(t *testing.T) {
	t.Parallel()
	for name, g := range NewMain().groups() {
		for _, c := range g.subs {
			if _, ok := ownerCommands[name+" "+c.name()]; !ok {
				t.Errorf("recur %s %s is not tried here", name, c.name())
			}
		}
	}
	for name, args := range ownerCommands {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			for _, where := range []string{"AbsentFolder", "EmptyFolder"} {
				parent := t.TempDir()
				dir := filepath.Join(parent, "data")
				if where == "EmptyFolder" {
					os.Mkdir(dir, 0o700)
				}
				args := append([]string(nil), args...)
				if args[0] == "backup" {
					args[1] = filepath.Join(parent, args[1])
				}
				out, _, err := run(t, dir, "a long password\n", args...)
				if err == nil {
					t.Fatalf("%s: no error", where)
				}
				said := err.Error() + out
				if want := "no database at " + filepath.Join(dir, "recur.db"); !strings.Contains(said, want) {
					t.Errorf("%s: said %q, want %q", where, said, want)
				}
				if name != "backup" {
					for _, want := range []string{"--config FILE", "data_dir", "RECUR_STORAGE_DATA_DIR", "recur serve"} {
						if !strings.Contains(said, want) {
							t.Errorf("%s: said %q, want it to name %s", where, said, want)
						}
					}
				}
				var left []string
				filepath.Walk(parent, func(path string, _ os.FileInfo, _ error) error {
					if path != parent && !(where == "EmptyFolder" && path == dir) {
						left = append(left, path)
					}
					return nil
				})
				if len(left) > 0 {
					t.Errorf("%s: the command made %v", where, left)
				}
			}
		})
	}
	t.Run("NamesTheConfigFile", func(t *testing.T) {
		config := filepath.Join(t.TempDir(), "recur.toml")
		dir := filepath.Join(t.TempDir(), "elsewhere")
		os.WriteFile(config, []byte("[storage]\ndata_dir = \""+dir+"\"\n"), 0o600)
		_, _, err := runEnv(t, nil, "", "user", "list", "--config", config)
		if err == nil || !strings.Contains(err.Error(), "set in "+config) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v, want it to name %s and %s", err, config, dir)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the data folder was made: %v", err)
		}
	})
	t.Run("ServeAndMigrateMakeOne", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if _, _, err := run(t, dir, "", "migrate", "status"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "recur.db")); err != nil {
			t.Errorf("migrate made no database: %v", err)
		}
	})
}

// TestHelp asks each command made of subcommands, and each subcommand, for
// help: it is printed and ParseFlags answers flag.ErrHelp, which main turns
// into exit status 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	for name, g := range NewMain().groups() {
		t.Run(name, func(t *testing.T) {
			for _, h := range []string{"--help", "-h", "help"} {
				out, _, err := run(t, t.TempDir(), "", name, h)
				if !errors.Is(err, flag.ErrHelp) {
					t.Errorf("recur %s %s: %v, want flag.ErrHelp", name, h, err)
				}
				for _, c := range g.subs {
					if !strings.Contains(out, "recur "+name+" "+c.synopsis) {
						t.Errorf("recur %s %s does not list %q:\n%s", name, h, c.synopsis, out)
					}
				}
			}
			if _, _, err := run(t, t.TempDir(), "", name); err == nil || errors.Is(err, flag.ErrHelp) {
				t.Errorf("recur %s alone: %v, want an error", name, err)
			}
			if _, _, err := run(t, t.TempDir(), "", name, "frobnicate"); err == nil || !strings.Contains(err.Error(), "unknown command") {
				t.Errorf("recur %s frobnicate: %v", name, err)
			}
			for _, c := range g.subs {
				m := NewMain()
				var stderr bytes.Buffer
				m.Stderr = &stderr
				if err := m.ParseFlags([]string{name, c.name(), "--help"}); !errors.Is(err, flag.ErrHelp) {
					t.Errorf("recur %s %s --help: %v", name, c.name(), err)
				}
				if !strings.Contains(stderr.String(), "Usage: recur "+name+" "+c.name()) {
					t.Errorf("recur %s %s --help printed %q", name, c.name(), stderr.String())
				}
			}
		})
	}
}

func TestConfirm(t *testing.T) {
	t.Parallel()
	for answer, want := range map[string]bool{"yes\n": true, " YES \n": true, "yes": true, "y\n": false, "no\n": false, "": false} {
		var asked bytes.Buffer
		if got := confirm(strings.NewReader(answer), &asked, "Delete? "); got != want {
			t.Errorf("answer %q: %v, want %v", answer, got, want)
		}
		if asked.String() != "Delete? " {
			t.Errorf("asked %q", asked.String())
		}
	}
}
