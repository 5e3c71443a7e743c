package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/recur-journal/recur/backup"
	"github.com/recur-journal/recur/internal/bytesize"
	"github.com/recur-journal/recur/internal/secretkey"
)

const backupAbout = `Write one archive (tar.gz) holding a consistent copy of the database and
secret.key, readable by you alone. FILE must not exist yet. The server may keep
running meanwhile. The archive holds every journal and the key that signs
sign-in links and seals two-factor secrets: keep it as private as the data folder.

Bring it back with: recur restore FILE`

const restoreAbout = `Bring back an archive made by "recur backup" into an empty (or absent) data
folder: the one [storage] data_dir (RECUR_STORAGE_DATA_DIR) names, so give it the
same --config as serve. The archive is checked first: it must hold recur.db (at
most 64 GiB) and secret.key (a key Recur made) and nothing else, and the
database must pass SQLite's integrity check and migrate. Nothing is written
unless all of that holds. A folder that already holds a database or a
secret.key is refused: point data_dir at a new folder, or stop Recur and move
the old one away. Files are written 0600, a new folder 0700.

An archive encrypted with age (as [backup] age_recipient makes them) needs
--identity FILE: the file holding the age secret key (AGE-SECRET-KEY-1...)
that matches the recipient.`

// backup writes the archive to path.
func (m *Main) backup(ctx context.Context, path string) error {
	if err := m.loadConfig(); err != nil {
		return err
	}
	if err := backup.RefuseExisting(path); err != nil {
		return err
	}
	if _, err := os.Stat(m.Config.DBPath()); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no database at %s to back up; check [storage] data_dir (RECUR_STORAGE_DATA_DIR)", m.Config.DBPath())
	}
	if err := m.openStore(ctx, false); err != nil {
		return err
	}
	key, err := secretkey.Load(m.Config.Storage.DataDir)
	if err != nil {
		return err
	}
	size, err := backup.Write(ctx, m.store, key, path, nil, stderrProgress(m.Stderr))
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Wrote %s (%s): the database and %s. Keep it private.\nBring it back into an empty data folder with: recur restore %s\n",
		path, bytesize.Format(size), secretkey.File, path)
	return nil
}

// restore brings the archive at path back into the data folder, decrypting
// it with the age secret keys in the file identity when it is encrypted.
func (m *Main) restore(ctx context.Context, path, identity string) error {
	if err := m.loadConfig(); err != nil {
		return err
	}
	dir := m.Config.Storage.DataDir
	if err := backup.Restore(ctx, path, identity, dir, stderrProgress(m.Stderr)); err != nil {
		return err
	}
	if err := m.secureDataDir(); err != nil {
		return err
	}
	next := "recur serve"
	if m.ConfigPath != "" {
		next += " --config " + m.ConfigPath
	}
	fmt.Fprintf(m.Stdout, "Restored %s into %s.\nStart Recur with: %s\n", path, dir, next)
	return nil
}

// stderrProgress is the progress of a command whose standard error is w:
// rewritten lines when w is a terminal.
func stderrProgress(w io.Writer) *backup.Progress {
	r, ok := w.(io.Reader)
	return backup.NewProgress(w, ok && isTerminal(r))
}
