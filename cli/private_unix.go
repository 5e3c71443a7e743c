//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/recur-journal/recur/internal/secretkey"
	"github.com/recur-journal/recur/store"
)

// restrictUmask keeps whatever the process creates private to its owner,
// unless the code asks for less: a second line behind the explicit 0600 and
// 0700 modes Recur gives its files and folders.
func restrictUmask() { syscall.Umask(0o077) }

// secureDataDir keeps the data folder's files private. Files found readable
// or writable by others (made by an older Recur, or copied in) are narrowed
// to 0600 with one info line. A folder others can open is left as its owner
// set it, with a warning saying how to close it.
func (m *Main) secureDataDir() error {
	dir := m.Config.Storage.DataDir
	files := append(store.DatabaseFiles(m.Config.DBPath()), filepath.Join(dir, secretkey.File))
	changed, err := store.MakePrivate(files...)
	if err != nil {
		return fmt.Errorf("make the data files private: %w", err)
	}
	if len(changed) > 0 {
		m.Logger.Info("made data files readable by their owner alone", "files", changed)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		m.Logger.Warn(fmt.Sprintf("the data folder %s can be opened by other users; run: chmod 700 %s", dir, dir),
			"data_dir", dir, "mode", fmt.Sprintf("%04o", perm))
	}
	return nil
}
