package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkDBExists refuses to go on when the database does not exist, unless
// the command may make one (serve and migrate). A command run from the
// wrong folder would otherwise make an empty data folder and database
// there and act on them as if nothing were amiss. It creates nothing.
func (m *Main) checkDBExists() error {
	path := m.Config.DBPath()
	_, err := os.Stat(path)
	if m.mayCreateDB || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return fmt.Errorf("there is no database at %s (%s). Point Recur at yours with --config FILE, "+
		"[storage] data_dir in the configuration or RECUR_STORAGE_DATA_DIR, "+
		"or run \"recur serve\" once to make a new one", path, m.dataDirSource())
}

// dataDirSource says where the data folder's name came from.
func (m *Main) dataDirSource() string {
	for _, kv := range m.Env {
		if strings.HasPrefix(kv, "RECUR_STORAGE_DATA_DIR=") {
			return "the data folder comes from RECUR_STORAGE_DATA_DIR"
		}
	}
	file := m.ConfigPath
	if file == "" {
		file = "recur.toml"
		if _, err := os.Stat(file); err != nil {
			wd, _ := os.Getwd()
			return fmt.Sprintf("there is no recur.toml in %s, so the data folder is the default, %q", wd, DefaultConfig().Storage.DataDir)
		}
	}
	if m.Config.Storage.DataDir == DefaultConfig().Storage.DataDir {
		return fmt.Sprintf("%s does not set [storage] data_dir, so it is the default, %q", file, m.Config.Storage.DataDir)
	}
	return fmt.Sprintf("the data folder is set in %s", file)
}
