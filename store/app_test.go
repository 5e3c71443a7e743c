package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

func TestApp(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	ctx := context.Background()
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")

	a := store.App{UserID: alice.ID, Name: " Shortcut ", Scopes: []string{"captures:write", "captures:write"}}
	plain, err := s.CreateApp(ctx, &a)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Create", func(t *testing.T) {
		if got, want := a.Name, "Shortcut"; got != want {
			t.Errorf("name = %q, want %q", got, want)
		}
		tok, _, err := s.Authenticate(ctx, plain)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tok.ID, a.TokenID; got != want {
			t.Errorf("token id = %q, want the app's %q", got, want)
		}
		if got, want := tok.Name, "Shortcut"; got != want {
			t.Errorf("token name = %q, want %q", got, want)
		}
		if got, want := tok.Scopes, []string{"captures:write"}; !slices.Equal(got, want) {
			t.Errorf("token scopes = %v, want %v", got, want)
		}
		found, err := s.FindApp(ctx, alice.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if found.LastUsedAt == nil {
			t.Error("last used not taken from the token")
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, bad := range []store.App{
			{UserID: alice.ID, Name: "  ", Scopes: []string{"*"}},
			{UserID: alice.ID, Name: strings.Repeat("é", 256), Scopes: []string{"*"}},
			{UserID: alice.ID, Name: "x", Scopes: []string{" "}},
		} {
			if _, err := s.CreateApp(ctx, &bad); store.ErrorCode(err) != store.EINVALID {
				t.Errorf("CreateApp(%q, %q) = %v, want EINVALID", bad.Name, bad.Scopes, err)
			}
		}
	})
	t.Run("AnotherUser", func(t *testing.T) {
		if _, err := s.FindApp(ctx, bob.ID, a.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("FindApp = %v, want ENOTFOUND", err)
		}
		name := "Mine"
		if _, err := s.UpdateApp(ctx, bob.ID, a.ID, store.AppUpdate{Name: &name}); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("UpdateApp = %v, want ENOTFOUND", err)
		}
		if err := s.DeleteApp(ctx, bob.ID, a.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("DeleteApp = %v, want ENOTFOUND", err)
		}
		if list, total, err := s.ListApps(ctx, bob.ID, store.Page{Page: 1, Limit: 15}); err != nil || total != 0 || len(list) != 0 {
			t.Errorf("bob's apps = %v, %d, %v; want none", list, total, err)
		}
	})
	t.Run("Update", func(t *testing.T) {
		scopes := []string{"captures:read"}
		got, err := s.UpdateApp(ctx, alice.ID, a.ID, store.AppUpdate{Scopes: &scopes})
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Shortcut" || !slices.Equal(got.Scopes, scopes) {
			t.Errorf("app = %+v", got)
		}
		tok, _, err := s.Authenticate(ctx, plain)
		if err != nil {
			t.Fatal(err)
		}
		if !tok.Can("captures:read") || tok.Can("captures:write") {
			t.Errorf("token scopes = %v, want %v", tok.Scopes, scopes)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		if err := s.DeleteApp(ctx, alice.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Authenticate(ctx, plain); store.ErrorCode(err) != store.EUNAUTHORIZED {
			t.Errorf("Authenticate after delete = %v, want EUNAUTHORIZED", err)
		}
		if _, err := s.FindApp(ctx, alice.ID, a.ID); store.ErrorCode(err) != store.ENOTFOUND {
			t.Errorf("FindApp after delete = %v, want ENOTFOUND", err)
		}
	})
}

func TestPushToken(t *testing.T) {
	t.Parallel()
	s := storetest.MustOpen(t)
	ctx := context.Background()
	alice := storetest.MustCreateUser(t, s, "alice@example.com")
	bob := storetest.MustCreateUser(t, s, "bob@example.com")

	p := store.PushToken{UserID: alice.ID, Token: "device-1", Platform: "android"}
	if err := s.SavePushToken(ctx, &p); err != nil {
		t.Fatal(err)
	}
	again := store.PushToken{UserID: alice.ID, Token: "device-1"}
	if err := s.SavePushToken(ctx, &again); err != nil {
		t.Fatal(err)
	}
	if got, want := again.Platform, "android"; got != want {
		t.Errorf("platform = %q, want %q kept", got, want)
	}
	if got, want := again.CreatedAt, p.CreatedAt; !got.Equal(want) {
		t.Errorf("created_at = %v, want %v kept", got, want)
	}
	if bad := (store.PushToken{UserID: alice.ID, Token: "x", Platform: "windows"}); store.ErrorCode(s.SavePushToken(ctx, &bad)) != store.EINVALID {
		t.Error("unknown platform accepted")
	}
	if err := s.DeletePushToken(ctx, bob.ID, "device-1"); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("bob deletes alice's token: %v, want ENOTFOUND", err)
	}
	moved := store.PushToken{UserID: bob.ID, Token: "device-1"}
	if err := s.SavePushToken(ctx, &moved); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.PushTokens(ctx, alice.ID); len(list) != 0 {
		t.Errorf("alice keeps %+v after bob signed in on the device", list)
	}
	if list, _ := s.PushTokens(ctx, bob.ID); len(list) != 1 || list[0].Platform != "android" {
		t.Errorf("bob's tokens = %+v", list)
	}
}
