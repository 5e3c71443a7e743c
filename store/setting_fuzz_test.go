package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// FuzzSetting puts arbitrary keys and values. A value that is accepted is
// stored in a canonical form that reads back equal and is itself accepted
// unchanged; anything else is refused with a field error under key or
// value and leaves the stored setting as it was. Nothing panics.
func FuzzSetting(f *testing.F) {
	for _, seed := range [][2]string{
		{"timezone", "Europe/Lisbon"}, {"timezone", " Asia/Kathmandu "}, {"timezone", "Local"}, {"timezone", ""},
		{"timezone", "Europe/./Lisbon"}, {"timezone", "../etc/passwd"}, {"timezone", "/UTC"}, {"timezone", "Etc/GMT+5"},
		{"app_locale", "pt-br"}, {"app_locale", "zh-hant-tw"}, {"app_locale", "en-u-ca-gregory"}, {"app_locale", "i-klingon"},
		{"app_locale", "not a tag!"}, {"app_locale", "und"}, {"colour", "blue"}, {"", ""}, {"timezone\x00", "UTC"},
	} {
		f.Add(seed[0], seed[1])
	}
	ctx := context.Background()
	s := storetest.MustOpen(f)
	u := storetest.MustCreateUser(f, s, "fuzz@example.com")
	f.Fuzz(func(t *testing.T, key, value string) {
		before, err := s.Settings(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		st := store.Setting{Key: key, Value: value}
		err = s.PutSetting(ctx, u.ID, &st)
		if err != nil {
			var e *store.Error
			if !errors.As(err, &e) || e.Code != store.EINVALID || (e.Field != "key" && e.Field != "value") || e.Message == "" {
				t.Fatalf("PutSetting(%q, %q) = %v, want a field error under key or value", key, value, err)
			}
			after, err := s.Settings(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			for i := range before {
				if before[i] != after[i] {
					t.Fatalf("a refused setting changed %v to %v", before[i], after[i])
				}
			}
			return
		}
		got, err := s.SettingValue(ctx, u.ID, key)
		if err != nil || got != st.Value {
			t.Fatalf("%s stored as %q, read back %q (%v)", key, st.Value, got, err)
		}
		again := store.Setting{Key: key, Value: st.Value}
		if err := again.Validate(); err != nil || again.Value != st.Value {
			t.Fatalf("the stored %s %q is not canonical: %q, %v", key, st.Value, again.Value, err)
		}
		if key == store.SettingTimezone {
			loc, err := s.Location(ctx, u.ID)
			if err != nil || loc.String() != st.Value {
				t.Fatalf("timezone %q gives location %v, %v", st.Value, loc, err)
			}
			if _, err := time.LoadLocation(st.Value); err != nil {
				t.Fatalf("timezone %q stored but not loadable: %v", st.Value, err)
			}
		}
	})
}

// TestSettingValueBounds: a value is at most MaxSettingValue characters,
// and a timezone is a zone's own name, not a path that reaches it through
// the host's zone folder (the zones built into the binary would not know
// it, and the user's days would silently turn UTC).
func TestSettingValueBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.MustOpen(t)
	u := storetest.MustCreateUser(t, s, "bounds@example.com")
	for _, value := range []string{"Europe/./Lisbon", "Europe//Lisbon", "./UTC", "Europe/Lisbon/../Lisbon"} {
		err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: value})
		var e *store.Error
		if !errors.As(err, &e) || e.Code != store.EINVALID || e.Field != "value" {
			t.Errorf("timezone %q = %v, want invalid value", value, err)
		}
	}
	// A well-formed tag, long only through its private-use subtags.
	long := "en-x-" + strings.TrimSuffix(strings.Repeat("abcdefgh-", store.MaxSettingValue/9+1), "-")
	if err := (&store.Setting{Key: store.SettingAppLocale, Value: long[:len(long)-9*2]}).Validate(); err != nil {
		t.Fatalf("a shorter private-use tag was refused: %v", err)
	}
	err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingAppLocale, Value: long})
	var e *store.Error
	if !errors.As(err, &e) || e.Code != store.EINVALID || e.Field != "value" {
		t.Errorf("a value of %d characters = %v, want invalid value", len(long), err)
	}
	if err := s.PutSetting(ctx, u.ID, &store.Setting{Key: store.SettingTimezone, Value: "America/Argentina/ComodRivadavia"}); err != nil {
		t.Errorf("the longest zone name was refused: %v", err)
	}
}
