package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"filippo.io/age"
)

// TestScheduledBackupRestore runs the backup job of a serving instance
// (plain, and encrypted to an age recipient) and restores what it wrote into
// a new data folder: every entry is there.
func TestScheduledBackupRestore(t *testing.T) {
	t.Parallel()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := age.GenerateX25519Identity()
	keys := t.TempDir()
	idFile, otherFile := filepath.Join(keys, "key.txt"), filepath.Join(keys, "other.txt")
	os.WriteFile(idFile, []byte("# created by age-keygen\n"+id.String()+"\n"), 0o600)
	os.WriteFile(otherFile, []byte(other.String()+"\n"), 0o600)

	for _, c := range []struct {
		name      string
		recipient string
		suffix    string
	}{
		{name: "Plain", suffix: ".tar.gz"},
		{name: "Encrypted", recipient: id.Recipient().String(), suffix: ".tar.gz.age"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			backups := filepath.Join(t.TempDir(), "backups")
			m, _, base := startServer(t, dir, "RECUR_BACKUP_DIR="+backups, "RECUR_BACKUP_AGE_RECIPIENT="+c.recipient)
			client, _ := analysedCapture(t, dir, base)
			for _, text := range []string{"Second entry: a walk in the park.", "Third entry: I called my sister."} {
				status, body := client.Do("POST", "/captures", `{"text":"`+text+`"}`)
				if status != 201 {
					t.Fatalf("POST /captures = %d %v", status, body)
				}
				client.WaitProcessed(body["data"].(map[string]any)["id"].(string))
			}
			journal := exportDoc(t, dir)
			if got := len(journal["captures"].([]any)); got != 3 {
				t.Fatalf("the journal holds %d captures, want 3", got)
			}

			if m.ops.backups == nil {
				t.Fatal("[backup] dir is set, but no backup job was scheduled")
			}
			if err := m.ops.backups.Run(context.Background()); err != nil {
				t.Fatalf("backup job: %v", err)
			}
			archives, _ := filepath.Glob(filepath.Join(backups, "recur-backup-*"))
			if len(archives) != 1 || !strings.HasSuffix(archives[0], c.suffix) {
				t.Fatalf("backup folder holds %v, want one archive ending %s", archives, c.suffix)
			}
			archive := archives[0]
			if st, err := os.Stat(archive); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("archive mode = %v (%v), want 0600", st.Mode().Perm(), err)
			}
			if err := m.ops.backups.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if again, _ := filepath.Glob(filepath.Join(backups, "recur-backup-*")); len(again) != 1 {
				t.Errorf("a second run within the interval wrote another backup: %v", again)
			}
			if c.recipient != "" {
				if b := readFile(t, archive); !bytes.HasPrefix(b, []byte("age-encryption.org/v1\n")) || bytes.Contains(b, []byte("SQLite format 3")) {
					t.Errorf("the archive is not age-encrypted")
				}
				fresh := filepath.Join(t.TempDir(), "fresh")
				if _, _, err := run(t, fresh, "", "restore", archive); err == nil || !strings.Contains(err.Error(), "--identity FILE") {
					t.Errorf("restore of an encrypted archive without --identity: %v, want it to ask for --identity FILE", err)
				}
				if _, _, err := run(t, fresh, "", "restore", "--identity", otherFile, archive); err == nil || !strings.Contains(err.Error(), "opens the archive") {
					t.Errorf("restore with another key: %v, want a refusal naming the key file", err)
				}
				if _, err := os.Stat(fresh); !os.IsNotExist(err) {
					t.Errorf("a refused restore left the data folder behind")
				}
			}

			restored := filepath.Join(t.TempDir(), "restored")
			args := []string{"restore", archive}
			if c.recipient != "" {
				args = append(args, "--identity", idFile)
			}
			if _, _, err := run(t, restored, "", args...); err != nil {
				t.Fatalf("restore: %v", err)
			}
			if got := exportDoc(t, restored); !reflect.DeepEqual(got, journal) {
				t.Errorf("restored journal differs:\n%v\nwant\n%v", got, journal)
			}
			if got, want := readFile(t, filepath.Join(restored, "secret.key")), readFile(t, filepath.Join(dir, "secret.key")); !bytes.Equal(got, want) {
				t.Errorf("restored secret.key differs from the original")
			}
		})
	}
}

// TestBackupConfig refuses [backup] and [metrics] values that cannot work,
// naming the key.
func TestBackupConfig(t *testing.T) {
	t.Parallel()
	id, _ := age.GenerateX25519Identity()
	for _, c := range []struct {
		env  string
		want string // empty: accepted
	}{
		{env: "RECUR_BACKUP_AGE_RECIPIENT=" + id.Recipient().String()},
		{env: "RECUR_BACKUP_AGE_RECIPIENT=age1notakey", want: `backup.age_recipient: "age1notakey" is not an age public key`},
		{env: "RECUR_BACKUP_AGE_RECIPIENT=" + id.String(), want: "backup.age_recipient"},
		{env: "RECUR_BACKUP_INTERVAL=30s", want: "backup.interval: must be at least 1m"},
		{env: "RECUR_BACKUP_KEEP=0", want: "backup.keep: must be at least 1"},
		{env: "RECUR_METRICS_ADDR=9090", want: "metrics.addr"},
		{env: "RECUR_METRICS_ADDR=127.0.0.1:9090"},
	} {
		_, err := LoadConfig("", false, []string{c.env})
		if c.want == "" && err != nil {
			t.Errorf("%s: %v, want it accepted", c.env, err)
		} else if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want an error with %q", c.env, err, c.want)
		}
	}
}

// TestBackupRestoreOutputClean: recur backup and recur restore with
// standard error not a terminal write plain step lines, no \r.
func TestBackupRestoreOutputClean(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	if _, _, err := run(t, dir, "", "migrate", "up"); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "backup.tar.gz")
	_, backupErr, err := run(t, dir, "", "backup", archive)
	if err != nil {
		t.Fatal(err)
	}
	_, restoreErr, err := run(t, filepath.Join(t.TempDir(), "restored"), "", "restore", archive)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ got, want string }{
		"backup":  {backupErr, "Copying the database...\nWriting the archive...\n"},
		"restore": {restoreErr, "Reading the archive...\nChecking the database...\n"},
	} {
		if c.got != c.want {
			t.Errorf("recur %s wrote %q on standard error, want the plain steps %q", name, c.got, c.want)
		}
	}
}
