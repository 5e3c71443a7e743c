package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTrustedProxiesConfig(t *testing.T) {
	t.Parallel()
	t.Run("File", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "recur.toml")
		if err := os.WriteFile(path, []byte("[server]\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(path, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Server.TrustedProxies, []string{"127.0.0.1", "10.0.0.0/8"}; !slices.Equal(got, want) {
			t.Errorf("trusted_proxies = %q, want %q", got, want)
		}
	})
	t.Run("EnvironmentCommaSeparated", func(t *testing.T) {
		cfg, err := LoadConfig("", false, []string{"RECUR_SERVER_TRUSTED_PROXIES= 127.0.0.1 ,::1,, fd00::/8"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Server.TrustedProxies, []string{"127.0.0.1", "::1", "fd00::/8"}; !slices.Equal(got, want) {
			t.Errorf("trusted_proxies = %q, want %q", got, want)
		}
	})
}
