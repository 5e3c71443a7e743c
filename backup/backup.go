// Package backup writes a data folder's database and secret.key to one
// archive (tar.gz, optionally encrypted with age), brings an archive back
// into an empty data folder, and writes archives on a schedule, keeping the
// newest.
package backup

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/recur-journal/recur/internal/bytesize"
	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/migrations"
	"github.com/recur-journal/recur/store"
)

// A backup is one gzip-compressed tar archive of the two files a data folder
// needs, both at its top: recur.db, a consistent copy of the database, and
// secret.key, the instance's secret.
const (
	// backupDB is the database's name in the archive and in the data folder.
	backupDB = "recur.db"
	// maxKeySize bounds secret.key in an archive; Recur writes 65 bytes.
	maxKeySize = 4 << 10
	// maxDBSize bounds the database in an archive, so a damaged or forged
	// archive cannot fill the disk.
	maxDBSize = 64 << 30
	// maxTrailer bounds what restore reads after the archive's last member.
	maxTrailer = 1 << 20
)

// Write writes the archive of the store s and the instance's key to a
// new file at path, mode 0600, encrypted to recipient unless it is nil, and
// returns the archive's size. A file at path is never overwritten; on
// failure nothing is left at path. p, when not nil, is told of each step.
func Write(ctx context.Context, s *store.Store, key []byte, path string, recipient age.Recipient, p *Progress) (int64, error) {
	// The copy goes to a private folder beside the archive, then into it.
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".recur-backup-*")
	if err != nil {
		return 0, fmt.Errorf("cannot write beside %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, backupDB)
	p.Step("Copying the database...")
	if err := s.Backup(ctx, db); err != nil {
		return 0, fmt.Errorf("copy the database: %w", err)
	}

	// O_EXCL: an archive that appeared meanwhile is not overwritten either.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return 0, RefuseExisting(path)
	} else if err != nil {
		return 0, err
	}
	n := &bytesize.Counter{W: f}
	p.Step("Writing the archive...")
	err = writeMaybeEncrypted(n, recipient, func(w io.Writer) error { return writeArchive(w, db, secretkey.Text(key), p) })
	p.Done()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return n.N, nil
}

// RefuseExisting fails when there is a file at path, which a backup must
// not overwrite.
func RefuseExisting(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists; name a new file, or move the old one away first", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeArchive writes the key and the database file at db as a tar.gz to
// w, counting the database's bytes on p.
func writeArchive(w io.Writer, db string, key []byte, p *Progress) error {
	f, err := os.Open(db)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	p.Count("database", st.Size())
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	now := time.Now().UTC().Truncate(time.Second)
	for _, member := range []struct {
		name string
		size int64
		r    io.Reader
	}{{secretkey.File, int64(len(key)), strings.NewReader(string(key))}, {backupDB, st.Size(), p.Reader(f)}} {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: member.name, Mode: 0o600, Size: member.size, ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, member.r); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// Restore brings the archive at path back into the data folder dir,
// decrypting it with the age secret keys in the file identity when it is
// encrypted. dir must be empty or absent; nothing is written unless the
// archive holds a key Recur made and a database that passes SQLite's check
// and migrates. p, when not nil, is told of each step.
func Restore(ctx context.Context, path, identity, dir string, p *Progress) error {
	if err := refuseUsedDataDir(dir); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()

	// The archive is unpacked into a hidden folder inside the data folder, so
	// that moving its files into place is a rename on one file system, and
	// checked there. Whatever fails, the folder is left as it was found.
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the data folder %s: %w", dir, err)
	}
	stage, err := os.MkdirTemp(dir, ".recur-restore-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		os.RemoveAll(stage)
		if !done && errors.Is(statErr, fs.ErrNotExist) {
			os.Remove(dir)
		}
	}()

	p.Step("Reading the archive...")
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	p.Count("archive", total)
	archive, err := openMaybeEncrypted(p.Reader(f), identity)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was restored", path, err)
	}
	err = unpackArchive(archive, stage)
	p.Done()
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was restored", path, err)
	}
	p.Step("Checking the database...")
	if err := checkBackup(ctx, stage); err != nil {
		return fmt.Errorf("%s: %w; nothing was restored", path, err)
	}
	// The database goes last: a folder with recur.db in it is a restored one.
	if err := refuseUsedDataDir(dir); err != nil {
		return err
	}
	for _, name := range []string{secretkey.File, backupDB + "-wal", backupDB} {
		if _, err := os.Stat(filepath.Join(stage, name)); errors.Is(err, fs.ErrNotExist) && name != backupDB {
			continue // SQLite folds the log into the database when it closes
		}
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	done = true
	return nil
}

// refuseUsedDataDir fails when dir already holds a database or a secret.
func refuseUsedDataDir(dir string) error {
	for _, name := range append(store.DatabaseFiles(backupDB), secretkey.File) {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("the data folder %s already holds %s; restore only into an empty folder: point [storage] data_dir (RECUR_STORAGE_DATA_DIR) at a new one, or stop Recur and move %s away first",
				dir, name, dir)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// unpackArchive reads a backup archive from r into the folder stage. It
// takes only the two members a backup has, each once, each within its size
// bound, and reads the compressed stream to its end so that its checksum is
// checked.
func unpackArchive(r io.Reader, stage string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return errors.New("not a backup made by recur backup (not gzip-compressed)")
	}
	limits := map[string]int64{backupDB: maxDBSize, secretkey.File: maxKeySize}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("damaged archive: %w", err)
		}
		limit, ok := limits[h.Name]
		switch {
		case strings.ContainsAny(h.Name, `/\`) || strings.Contains(h.Name, ".."):
			return fmt.Errorf("member %q has a path; a backup holds only %s and %s, at its top", h.Name, backupDB, secretkey.File)
		case !ok && (h.Name == backupDB || h.Name == secretkey.File):
			return fmt.Errorf("archive holds %s twice", h.Name)
		case !ok:
			return fmt.Errorf("member %q is not part of a backup, which holds only %s and %s", h.Name, backupDB, secretkey.File)
		case h.Typeflag != tar.TypeReg:
			return fmt.Errorf("member %s is not a plain file", h.Name)
		case h.Size > limit:
			return fmt.Errorf("member %s is %s, more than the %s a restore takes", h.Name, bytesize.Format(h.Size), bytesize.Format(limit))
		}
		delete(limits, h.Name)
		if err := unpackFile(tr, filepath.Join(stage, h.Name), h.Size); err != nil {
			return fmt.Errorf("damaged archive: %s: %w", h.Name, err)
		}
	}
	if n, err := io.Copy(io.Discard, io.LimitReader(gz, maxTrailer)); err != nil {
		return fmt.Errorf("damaged archive: %w", err)
	} else if n == maxTrailer {
		return errors.New("damaged archive: more follows its last member")
	}
	for _, name := range []string{secretkey.File, backupDB} {
		if _, missing := limits[name]; missing {
			return fmt.Errorf("not a complete backup: %s is missing", name)
		}
	}
	return nil
}

// unpackFile copies size bytes from r to a new private file at path.
func unpackFile(r io.Reader, path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, size))
	if err == nil && n != size {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkBackup checks the unpacked files in stage: the key is one Recur
// made, and the database opens, passes SQLite's quick check and migrates.
func checkBackup(ctx context.Context, stage string) error {
	b, err := os.ReadFile(filepath.Join(stage, secretkey.File))
	if err != nil {
		return err
	}
	if _, ok := secretkey.Parse(b); !ok {
		return fmt.Errorf("%s in it is not a secret Recur made", secretkey.File)
	}
	s, err := store.Open(store.Options{Path: filepath.Join(stage, backupDB), Migrations: migrations.FS})
	if err != nil {
		return fmt.Errorf("its database does not open: %w", err)
	}
	err = s.Check(ctx)
	if err == nil {
		_, err = s.Migrate(ctx)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("its database cannot be used: %w", err)
	}
	return nil
}
