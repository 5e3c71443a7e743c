package journal

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// Spool says where an upload is copied while it is read. Recur spools under
// its data folder, not the system's temporary folder, so that it works in a
// container whose root file system (and /tmp) is read-only.
type Spool struct {
	// Dir is the folder of the spool files; "" means the system's
	// temporary folder.
	Dir string
	// Writer, when set, wraps every write to a spool file. It is the seam
	// for tests of a full disk, which a test cannot make without
	// privileges: a writer that fails with ENOSPC stands in for one.
	Writer func(io.Writer) io.Writer
}

// SpaceError refuses an upload that Recur has no room to spool: the disk
// is full, or the spool folder cannot be written. Nothing of the upload is
// kept.
type SpaceError struct {
	Message string
	Err     error // the file system's error, for the log
}

// Error implements the error interface.
func (e *SpaceError) Error() string { return e.Message }

// Unwrap returns the file system's error.
func (e *SpaceError) Unwrap() error { return e.Err }

// spaceError is err as a *SpaceError when the file system is out of room
// or refuses writes, else err itself.
func spaceError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return &SpaceError{Err: err, Message: "The server has no room left for this upload: its disk is full. Nothing was imported; " +
			"try again once its owner has made room."}
	case errors.Is(err, syscall.EROFS), errors.Is(err, os.ErrPermission):
		return &SpaceError{Err: err, Message: "The server cannot store this upload: its upload folder cannot be written. Nothing was imported; " +
			"its owner should check the data folder."}
	}
	return err
}

// create makes a spool file, readable by Recur alone.
func (sp Spool) create() (*os.File, error) {
	f, err := os.CreateTemp(sp.Dir, "recur-import-*")
	return f, spaceError(err)
}

// mkdir makes a spool folder, for Recur alone.
func (sp Spool) mkdir() (string, error) {
	dir, err := os.MkdirTemp(sp.Dir, "recur-import-*")
	return dir, spaceError(err)
}

// writer is where a spool file is written through.
func (sp Spool) writer(f io.Writer) io.Writer {
	if sp.Writer != nil {
		return sp.Writer(f)
	}
	return f
}

// Clear removes what a spool left behind, such as the files of an import
// cut short by a crash. Call it before the spool is used.
func (sp Spool) Clear() error {
	if sp.Dir == "" {
		return nil
	}
	entries, err := os.ReadDir(sp.Dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(sp.Dir+string(os.PathSeparator)+e.Name()))
	}
	return errors.Join(errs...)
}
