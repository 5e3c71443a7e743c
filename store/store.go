// Package store keeps Recur's data in one SQLite file.
//
// Writes go through a single connection, so SQLite never has to arbitrate
// between writers; reads go through a pool that WAL mode lets run alongside
// the writer. Every method takes a context first and owns its transaction.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// TimeFormat is how every time is stored and shown: UTC, six fractional
// digits, a trailing Z. Text in this form sorts in time order.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime reads a time stored in TimeFormat.
func ParseTime(s string) (time.Time, error) { return time.Parse(TimeFormat, s) }

// Options configures Open.
type Options struct {
	// Path is the database file; its folder must exist.
	Path string
	// Migrations are the goose SQL files to apply.
	Migrations fs.FS
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Readers caps the reader pool; 0 means one per CPU, at least two.
	Readers int
}

// Store is an open database.
type Store struct {
	write      *sql.DB
	read       *sql.DB
	writes     *stmtCache // hot statements of write
	reads      *stmtCache // hot statements of read
	migrations fs.FS
	now        func() time.Time
	creates    createGroup // entries written at once, committed together
	searches   *searchGate // how many searches run at once
	health     *sql.DB     // one reader of its own, for Ping
	diskFull   atomic.Bool // the last write failed for lack of space
}

// Open opens (creating if needed) the database at opts.Path. It does not
// migrate: call Migrate.
func Open(opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Readers <= 0 {
		opts.Readers = max(2, runtime.NumCPU())
	}
	// The pragmas ride in the DSN so that every connection the pool opens gets
	// them, not just the first. busy_timeout comes first so the others wait
	// for a lock instead of failing; WAL lets readers work beside the writer;
	// foreign keys make ON DELETE CASCADE do the clean-up; NORMAL sync is
	// durable across application crashes in WAL mode, which is what we need.
	pragmas := url.Values{}
	for _, p := range []string{"busy_timeout(5000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		pragmas.Add("_pragma", p)
	}
	path, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, err
	}
	// SQLite makes a new database with its own default mode (0644 less the
	// umask) and gives the -wal and -shm files the database's mode, so the
	// file is made here first, for its owner alone, and kept that way.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", opts.Path, err)
	}
	f.Close()
	if _, err := MakePrivate(DatabaseFiles(path)...); err != nil {
		return nil, err
	}
	writeDSN := "file:" + path + "?" + pragmas.Encode() + "&_txlock=immediate"
	write, err := sql.Open("sqlite", writeDSN)
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	// Open the writer first so the file exists and is in WAL mode before any
	// reader looks at it.
	if err := write.Ping(); err != nil {
		write.Close()
		return nil, fmt.Errorf("open database %s: %w", opts.Path, err)
	}

	pragmas.Add("_pragma", "query_only(1)")
	read, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode())
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(opts.Readers)
	read.SetMaxIdleConns(opts.Readers)
	// The health check reads through a connection of its own, so that it
	// answers however busy the reader pool is.
	health, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode())
	if err != nil {
		read.Close()
		write.Close()
		return nil, err
	}
	health.SetMaxOpenConns(1)

	return &Store{write: write, read: read, health: health, writes: newStmtCache(write), reads: newStmtCache(read),
		searches: newSearchGate(opts.Readers), migrations: opts.Migrations, now: opts.Now}, nil
}

// Close closes both pools, once the entries already waiting to be written
// are committed, and the prepared statements.
func (s *Store) Close() error {
	return errors.Join(s.creates.close(), s.reads.close(), s.writes.close(), s.read.Close(), s.health.Close(), s.write.Close())
}

// Now returns the store's clock reading, in UTC, at the precision stored.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Ping checks that the database answers a read of its schema, through a
// connection of its own: neither busy readers nor a long write (an import)
// hold it up. Whether writes succeed is DiskFull's to say.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	return s.health.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n)
}

// DiskFull reports whether the last write failed for lack of space (EFULL).
// The next write that commits clears it.
func (s *Store) DiskFull() bool { return s.diskFull.Load() }

// Backup writes a consistent copy of the database to path, which must not
// exist, readable by its owner alone. It reads one snapshot, so writers carry
// on meanwhile, in this process or another.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := s.write.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return err
	}
	_, err := MakePrivate(path)
	return err
}

// Check runs SQLite's quick integrity check and fails unless it finds nothing wrong.
func (s *Store) Check(ctx context.Context) error {
	var result string
	if err := s.read.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&result); err != nil {
		return err
	}
	if result != "ok" {
		return fmt.Errorf("database is damaged: %s", result)
	}
	return nil
}

// DatabaseFiles lists the files SQLite keeps for the database at path.
func DatabaseFiles(path string) []string { return []string{path, path + "-wal", path + "-shm"} }

// MakePrivate makes each of paths that exists readable and writable by its
// owner alone (0600), and returns those whose mode it had to narrow.
func MakePrivate(paths ...string) ([]string, error) {
	var changed []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return changed, err
		}
		if st.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, 0o600); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	return changed, nil
}

func (s *Store) provider() (*goose.Provider, error) {
	if s.migrations == nil {
		return nil, errors.New("store: no migrations given")
	}
	return goose.NewProvider(goose.DialectSQLite3, s.write, s.migrations)
}

// Migrate applies every pending migration, cuts the word stems of entries
// that lack them (see fillStems), and returns the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int64, error) {
	p, err := s.provider()
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	var versions []int64
	for _, r := range results {
		if r.Error == nil {
			versions = append(versions, r.Source.Version)
		}
	}
	if err != nil {
		return versions, fmt.Errorf("migrate: %w", err)
	}
	if err := s.fillStems(ctx); err != nil {
		return versions, fmt.Errorf("migrate: cut the word stems of entries: %w", err)
	}
	return versions, nil
}

// MigrateDown rolls back the newest applied migration and returns its version.
func (s *Store) MigrateDown(ctx context.Context) (int64, error) {
	p, err := s.provider()
	if err != nil {
		return 0, err
	}
	r, err := p.Down(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate down: %w", err)
	}
	return r.Source.Version, nil
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Version   int64
	Name      string
	AppliedAt *time.Time
}

// MigrationStatuses lists every known migration in order.
func (s *Store) MigrationStatuses(ctx context.Context) ([]MigrationStatus, error) {
	p, err := s.provider()
	if err != nil {
		return nil, err
	}
	list, err := p.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, 0, len(list))
	for _, m := range list {
		st := MigrationStatus{Version: m.Source.Version, Name: filepath.Base(m.Source.Path)}
		if m.State == goose.StateApplied {
			at := m.AppliedAt
			st.AppliedAt = &at
		}
		out = append(out, st)
	}
	return out, nil
}

// update runs fn in a write transaction and commits it when fn succeeds.
func (s *Store) update(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return s.noteFull(translate(err))
	}
	return s.noteFull(translate(tx.Commit()))
}

// noteFull keeps DiskFull up to date with a write's outcome err.
func (s *Store) noteFull(err error) error {
	full := ErrorCode(err) == EFULL
	if full || err == nil {
		s.diskFull.Store(full)
	}
	return err
}

// view runs fn in a read-only transaction, so it sees one snapshot.
func (s *Store) view(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// newID returns a fresh UUIDv7: time-ordered, so ids sort by creation.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// nullTime renders an optional time for storage.
func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return FormatTime(*t)
}

// dbTime scans a stored time (TimeFormat text) into the time.Time it
// points to: row.Scan(..., dbTime{&c.CreatedAt}). NULL is an error.
type dbTime struct{ t *time.Time }

// Scan implements sql.Scanner.
func (d dbTime) Scan(src any) error {
	t, err := parseStored(src)
	if err != nil {
		return err
	}
	*d.t = t
	return nil
}

// dbNullTime scans a stored time that may be NULL into the *time.Time it
// points to, which is nil for NULL: row.Scan(..., dbNullTime{&p.ClosedAt}).
type dbNullTime struct{ t **time.Time }

// Scan implements sql.Scanner.
func (d dbNullTime) Scan(src any) error {
	if src == nil {
		*d.t = nil
		return nil
	}
	t, err := parseStored(src)
	if err != nil {
		return err
	}
	*d.t = &t
	return nil
}

// parseStored reads a time column as the driver hands it over.
func parseStored(src any) (time.Time, error) {
	switch v := src.(type) {
	case string:
		return ParseTime(v)
	case []byte:
		return ParseTime(string(v))
	case time.Time:
		return v.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("a stored time cannot be read from %T", src)
}

// Page selects a slice of a list: Page counts from 1.
type Page struct {
	Page  int
	Limit int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (max(p.Page, 1) - 1) * p.Limit }
