package cli

import (
	"fmt"
	"time"

	"github.com/recur-journal/recur/backup"
)

// BackupConfig is the [backup] section: backups on a schedule.
type BackupConfig struct {
	// Dir is where scheduled backups go; empty turns them off.
	Dir string `toml:"dir"`
	// Interval is the time between two backups.
	Interval Duration `toml:"interval"`
	// Keep is how many of the newest backups are kept; older ones that
	// Recur named are removed.
	Keep int `toml:"keep"`
	// AgeRecipient, when set, is an age X25519 public key (age1...) each
	// backup is encrypted to.
	AgeRecipient string `toml:"age_recipient"`
}

// validate checks the [backup] section.
func (c BackupConfig) validate() error {
	bad := func(key, format string, args ...any) error {
		return &ConfigError{Source: "value", Key: "backup." + key, Reason: fmt.Sprintf(format, args...)}
	}
	if c.Interval.Duration < time.Minute {
		return bad("interval", "must be at least 1m, like 24h")
	}
	if c.Keep < 1 {
		return bad("keep", "must be at least 1")
	}
	if c.AgeRecipient != "" {
		if _, err := backup.ParseRecipient(c.AgeRecipient); err != nil {
			return bad("age_recipient", "%v", err)
		}
	}
	return nil
}
