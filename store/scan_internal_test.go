package store

import (
	"testing"
	"time"
)

// Stored times scan back to the instant they were written, in UTC; NULL is
// nil for the nullable scanner and an error for the other, as is text that
// is not a stored time.
func TestScanStoredTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 8, 21, 3, 120000000, time.FixedZone("east", 3600))
	for _, src := range []any{FormatTime(at), []byte(FormatTime(at))} {
		var got time.Time
		if err := (dbTime{&got}).Scan(src); err != nil || !got.Equal(at) || got.Location() != time.UTC {
			t.Errorf("dbTime from %T: %v, %v; want %v in UTC", src, got, err, at)
		}
		var null *time.Time
		if err := (dbNullTime{&null}).Scan(src); err != nil || null == nil || !null.Equal(at) {
			t.Errorf("dbNullTime from %T: %v, %v", src, null, err)
		}
	}
	t.Run("Null", func(t *testing.T) {
		was := time.Now()
		null := &was
		if err := (dbNullTime{&null}).Scan(nil); err != nil || null != nil {
			t.Errorf("dbNullTime from NULL: %v, %v; want nil", null, err)
		}
		var got time.Time
		if err := (dbTime{&got}).Scan(nil); err == nil {
			t.Error("dbTime from NULL: no error")
		}
	})
	t.Run("ErrText", func(t *testing.T) {
		var got time.Time
		var null *time.Time
		for _, src := range []any{"2026-11-22 08:21", int64(5)} {
			if (dbTime{&got}).Scan(src) == nil || (dbNullTime{&null}).Scan(src) == nil {
				t.Errorf("%v (%T) scanned without an error", src, src)
			}
		}
	})
}
