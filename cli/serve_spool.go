package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/recur-journal/recur/journal"
)

// spoolDir is the folder under the data folder that holds uploads while
// they are read: not the system's temporary folder, which a container may
// mount read-only, and on the disk whose room Recur's data needs anyway.
const spoolDir = "spool"

// openSpool makes the upload spool folder (0700) and removes what an
// import cut short by a crash left there.
func (m *Main) openSpool() (journal.Spool, error) {
	sp := journal.Spool{Dir: filepath.Join(m.Config.Storage.DataDir, spoolDir)}
	if err := os.MkdirAll(sp.Dir, 0o700); err != nil {
		return sp, fmt.Errorf("upload folder: %w", err)
	}
	if err := os.Chmod(sp.Dir, 0o700); err != nil {
		return sp, fmt.Errorf("upload folder: %w", err)
	}
	if err := sp.Clear(); err != nil {
		return sp, fmt.Errorf("upload folder: %w", err)
	}
	return sp, nil
}
