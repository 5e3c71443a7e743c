package store

import (
	"context"
	"database/sql"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// Setting keys a user may set.
const (
	SettingTimezone  = "timezone"
	SettingAppLocale = "app_locale"
)

// MaxSettingValue bounds a setting value, in characters: the longest zone
// name has 32 and a language tag needs far fewer.
const MaxSettingValue = 100

// SettingDefaults are the values a user has before setting anything.
var settingDefaults = map[string]string{
	SettingTimezone:  "UTC",
	SettingAppLocale: "en",
}

// SettingKeys lists the known keys in a stable order.
func SettingKeys() []string {
	keys := make([]string, 0, len(settingDefaults))
	for k := range settingDefaults {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Setting is one key and value of a user's settings.
type Setting struct {
	Key   string
	Value string
}

// Validate checks the key is known and the value fits it, and puts the value
// in canonical form (a language tag such as "pt-br" becomes "pt-BR").
// It returns EINVALID naming "key" or "value".
func (st *Setting) Validate() error {
	st.Value = strings.TrimSpace(st.Value)
	if _, ok := settingDefaults[st.Key]; !ok {
		return Invalid("key", "The setting %q does not exist; known settings are %s.", st.Key, strings.Join(SettingKeys(), " and "))
	}
	if utf8.RuneCountInString(st.Value) > MaxSettingValue {
		return Invalid("value", "A setting value has at most %d characters.", MaxSettingValue)
	}
	switch st.Key {
	case SettingTimezone:
		// time.LoadLocation also takes "" and "Local", which name no zone,
		// and spellings such as "Europe/./Lisbon" that only a zone folder
		// on disk resolves: the zones built into the binary would not.
		if st.Value == "" || st.Value == "Local" || path.Clean(st.Value) != st.Value {
			return Invalid("value", "The timezone must be an IANA time zone name, such as Europe/Lisbon.")
		}
		if _, err := time.LoadLocation(st.Value); err != nil {
			return Invalid("value", "The timezone must be an IANA time zone name, such as Europe/Lisbon.")
		}
	case SettingAppLocale:
		tag, err := language.Parse(st.Value)
		if err != nil || st.Value == "" {
			return Invalid("value", "The app_locale must be a language tag, such as en or pt-BR.")
		}
		st.Value = tag.String()
	}
	return nil
}

// Settings returns every known setting of the user, defaults filled in,
// ordered by key.
func (s *Store) Settings(ctx context.Context, userID string) ([]Setting, error) {
	values := make(map[string]string, len(settingDefaults))
	for k, v := range settingDefaults {
		values[k] = v
	}
	rows, err := s.read.QueryContext(ctx, `SELECT key, value FROM settings WHERE user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if _, known := settingDefaults[k]; known {
			values[k] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Setting, 0, len(values))
	for _, k := range SettingKeys() {
		out = append(out, Setting{Key: k, Value: values[k]})
	}
	return out, nil
}

// SettingValue returns one setting of the user, or its default.
func (s *Store) SettingValue(ctx context.Context, userID, key string) (string, error) {
	var v string
	err := s.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE user_id = ? AND key = ?`, userID, key).Scan(&v)
	if err == sql.ErrNoRows {
		return settingDefaults[key], nil
	}
	return v, err
}

// Location is the user's timezone setting as a location, where their days
// begin and end. A zone no longer known to the system falls back to UTC; it
// was checked when it was set.
func (s *Store) Location(ctx context.Context, userID string) (*time.Location, error) {
	tz, err := s.SettingValue(ctx, userID, SettingTimezone)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return time.UTC, nil
	}
	return loc, nil
}

// PutSetting validates st and stores it for the user. It returns EINVALID.
func (s *Store) PutSetting(ctx context.Context, userID string, st *Setting) error {
	if err := st.Validate(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (user_id, key, value, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			userID, st.Key, st.Value, FormatTime(s.Now()))
		return err
	})
}
