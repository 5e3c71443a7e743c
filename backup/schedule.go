package backup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"filippo.io/age"

	"github.com/recur-journal/recur/internal/bytesize"
	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/store"
)

// Options configure scheduled backups.
type Options struct {
	// Dir is where the backups go.
	Dir string
	// Interval is the time between two backups.
	Interval time.Duration
	// Keep is how many of the newest backups are kept; older ones that
	// Recur named are removed.
	Keep int
	// Recipient, when not nil, is the age key each backup is encrypted to.
	Recipient age.Recipient
	// DataDir is the data folder, whose secret.key goes into each backup.
	DataDir string
	// Store is the database backed up.
	Store  *store.Store
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Observe, when set, is told of each backup written: when, how long it
	// took and its size (the metrics).
	Observe func(at time.Time, took time.Duration, size int64)
}

// backupCheck is how often the backup job looks whether one is due. The job
// goes by the newest archive in the folder, not by when the server started,
// so a server restarted more often than the interval still backs up.
const backupCheck = 10 * time.Minute

// Scheduled backups are named for the moment they were made, in UTC, so
// that their names sort as their times do; an encrypted one ends in .age.
// Rotation touches no file but these.
const backupTimeLayout = "20060102T150405.000Z"

var backupName = regexp.MustCompile(`^recur-backup-(\d{8}T\d{6}\.\d{3}Z)\.tar\.gz(\.age)?$`)

// Scheduled writes a backup archive into a folder every interval and
// removes the oldest beyond the ones it keeps.
type Scheduled struct {
	cfg       Options
	dataDir   string
	store     *store.Store
	recipient age.Recipient // nil: plain archives
	log       *slog.Logger
	now       func() time.Time
	// observe, when set, is told of each backup written: when, how long it
	// took and its size (the metrics).
	observe func(at time.Time, took time.Duration, size int64)

	running atomic.Bool
	mu      sync.Mutex
	failed  time.Time // when the last try failed; zero after a success
}

// NewScheduled returns the backup job, which writes a backup into o.Dir
// every o.Interval. It tells o.Observe of the newest archive already there.
func NewScheduled(o Options) *Scheduled {
	b := &Scheduled{cfg: o, dataDir: o.DataDir, store: o.Store, recipient: o.Recipient, log: o.Logger,
		now: o.Now, observe: o.Observe}
	if b.now == nil {
		b.now = time.Now
	}
	if b.observe != nil {
		b.observeNewest()
	}
	return b
}

// observeNewest tells observe of the newest archive already in the folder,
// so that the metrics know the last backup from the start: its time from its
// name, its size from the file, its duration unknown.
func (b *Scheduled) observeNewest() {
	names, err := b.archives()
	if err != nil || len(names) == 0 {
		return
	}
	newest := names[len(names)-1]
	at, err := time.Parse(backupTimeLayout, backupName.FindStringSubmatch(newest)[1])
	st, serr := os.Stat(filepath.Join(b.cfg.Dir, newest))
	if err == nil && serr == nil {
		b.observe(at, 0, st.Size())
	}
}

// Schedule is the cron schedule of the job that checks whether a backup is due.
func (b *Scheduled) Schedule() string {
	return "@every " + min(b.cfg.Interval, backupCheck).String()
}

// Run backs up when one is due: when the newest archive in the folder is an
// interval old (or there is none), and no try failed within the last
// interval. A run while another is under way is skipped.
func (b *Scheduled) Run(ctx context.Context) error {
	if !b.running.CompareAndSwap(false, true) {
		b.log.Info("backup skipped: the previous one is still running")
		return nil
	}
	defer b.running.Store(false)
	if !b.due() {
		return nil
	}
	_, err := b.backup(ctx)
	return err
}

// due reports whether a backup is due now. A folder that cannot be read
// makes one due, so that the try fails, is logged and waits an interval.
func (b *Scheduled) due() bool {
	now := b.now()
	b.mu.Lock()
	failed := b.failed
	b.mu.Unlock()
	if !failed.IsZero() && now.Sub(failed) < b.cfg.Interval {
		return false
	}
	names, err := b.archives()
	if err != nil || len(names) == 0 {
		return true
	}
	newest, _ := time.Parse(backupTimeLayout, backupName.FindStringSubmatch(names[len(names)-1])[1])
	return now.Sub(newest) >= b.cfg.Interval
}

// backup writes one archive now, then removes the oldest beyond Keep. It
// logs one line, with the archive's size, and returns the archive's path.
func (b *Scheduled) backup(ctx context.Context) (string, error) {
	start := b.now()
	path, size, err := b.write(ctx)
	if err == nil && b.observe != nil {
		b.observe(start, b.now().Sub(start), size)
	}
	b.mu.Lock()
	if err != nil {
		b.failed = b.now()
	} else {
		b.failed = time.Time{}
	}
	b.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("backup failed; next try in %s: %w", b.cfg.Interval, err)
	}
	removed, err := b.rotate()
	b.log.Info("backup written", "file", path, "size", bytesize.Format(size), "bytes", size,
		"encrypted", b.recipient != nil, "removed", removed)
	if err != nil {
		return path, fmt.Errorf("remove old backups: %w", err)
	}
	return path, nil
}

// write writes the archive under a temporary name and renames it into
// place, so that a backup cut short never counts as the newest.
func (b *Scheduled) write(ctx context.Context) (string, int64, error) {
	if err := os.MkdirAll(b.cfg.Dir, 0o700); err != nil {
		return "", 0, err
	}
	key, err := os.ReadFile(filepath.Join(b.dataDir, secretkey.File))
	if err != nil {
		return "", 0, err
	}
	parsed, ok := secretkey.Parse(key)
	if !ok {
		return "", 0, fmt.Errorf("%s is not a secret Recur made", secretkey.File)
	}
	name := "recur-backup-" + b.now().UTC().Format(backupTimeLayout) + ".tar.gz"
	if b.recipient != nil {
		name += ".age"
	}
	path := filepath.Join(b.cfg.Dir, name)
	partial := filepath.Join(b.cfg.Dir, ".partial-"+name)
	size, err := Write(ctx, b.store, parsed, partial, b.recipient, nil)
	if err != nil {
		return "", 0, err
	}
	if err := os.Rename(partial, path); err != nil {
		os.Remove(partial)
		return "", 0, err
	}
	return path, size, nil
}

// archives lists the scheduled backups in the folder, oldest first.
func (b *Scheduled) archives() ([]string, error) {
	entries, err := os.ReadDir(b.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && backupName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// rotate removes the oldest scheduled backups beyond Keep, and returns how
// many it removed.
func (b *Scheduled) rotate() (int, error) {
	names, err := b.archives()
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, name := range names[:max(0, len(names)-b.cfg.Keep)] {
		if err := os.Remove(filepath.Join(b.cfg.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
