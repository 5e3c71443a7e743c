package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes text to a file name under a new temporary folder and
// returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigKubernetesVariables starts with the variables Kubernetes puts
// into every pod for a Service named recur, and still refuses a typo.
func TestConfigKubernetesVariables(t *testing.T) {
	t.Parallel()
	service := []string{
		"RECUR_SERVICE_HOST=10.43.0.17",
		"RECUR_SERVICE_PORT=8080",
		"RECUR_SERVICE_PORT_HTTP=8080",
		"RECUR_SERVICE_PORT_METRICS_PROM=9090",
		"RECUR_PORT=tcp://10.43.0.17:8080",
		"RECUR_PORT_8080_TCP=tcp://10.43.0.17:8080",
		"RECUR_PORT_8080_TCP_PROTO=tcp",
		"RECUR_PORT_8080_TCP_PORT=8080",
		"RECUR_PORT_8080_TCP_ADDR=10.43.0.17",
		"RECUR_PORT_9090_UDP_ADDR=10.43.0.17",
	}
	t.Run("OK", func(t *testing.T) {
		cfg, err := LoadConfig("", false, append(service, "RECUR_SERVER_ADDR=0.0.0.0:8080"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Server.Addr, "0.0.0.0:8080"; got != want {
			t.Errorf("addr = %q, want %q", got, want)
		}
	})
	for _, c := range []struct{ name, variable, want string }{
		{"ErrTypoSuggestsKey", "RECUR_SERVER_ADR=0.0.0.0:8080", "RECUR_SERVER_ADR: unknown variable; did you mean RECUR_SERVER_ADDR?"},
		{"ErrTypoInSection", "RECUR_MAL_PASSWORD=x", "did you mean RECUR_MAIL_PASSWORD?"},
		{"ErrLongerName", "RECUR_SERVER_ADDRESS=0.0.0.0:8080", "did you mean RECUR_SERVER_ADDR?"},
		{"ErrSecretFile", "RECUR_MAIL_PASWORD_FILE=/run/secrets/mail", "did you mean RECUR_MAIL_PASSWORD_FILE?"},
		{"ErrNotAKubernetesShape", "RECUR_PORT_8080_HTTP=tcp://10.43.0.17:8080", "RECUR_PORT_8080_HTTP: unknown variable"},
		{"ErrServiceWithoutName", "RECUR_SERVICE_PORT_=8080", "RECUR_SERVICE_PORT_: unknown variable"},
		{"ErrServiceOther", "RECUR_SERVICE_NAME=recur", "RECUR_SERVICE_NAME: unknown variable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadConfig("", false, append(service, c.variable))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
	t.Run("ErrFarFromAnyKeyHasNoSuggestion", func(t *testing.T) {
		_, err := LoadConfig("", false, []string{"RECUR_COLOUR=red"})
		if err == nil || !strings.Contains(err.Error(), "RECUR_COLOUR: unknown variable") || strings.Contains(err.Error(), "did you mean") {
			t.Fatalf("err = %v, want unknown variable without a guess", err)
		}
	})
	t.Run("ErrFileKeySuggestsKey", func(t *testing.T) {
		_, err := LoadConfig(writeFile(t, "recur.toml", "[server]\naddress = \"x\"\n"), true, nil)
		if err == nil || !strings.Contains(err.Error(), "server.address: unknown key; did you mean server.addr?") {
			t.Fatalf("err = %v, want a suggestion of server.addr", err)
		}
	})
}

// TestConfigSecretFiles reads a secret from the file a Docker or Kubernetes
// secret mounts, named by <key>_file or RECUR_..._FILE.
func TestConfigSecretFiles(t *testing.T) {
	t.Parallel()
	secret := writeFile(t, "mail-password", "s3cret pass\n")
	t.Run("FromFileKey", func(t *testing.T) {
		cfg, err := LoadConfig(writeFile(t, "recur.toml", "[mail]\npassword_file = \""+secret+"\"\n"), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Mail.Password, "s3cret pass"; got != want {
			t.Errorf("password = %q, want %q (one trailing newline trimmed)", got, want)
		}
	})
	t.Run("FromVariable", func(t *testing.T) {
		cfg, err := LoadConfig("", false, []string{"RECUR_MAIL_PASSWORD_FILE=" + secret})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Mail.Password, "s3cret pass"; got != want {
			t.Errorf("password = %q, want %q", got, want)
		}
	})
	t.Run("OnlyOneNewlineTrimmed", func(t *testing.T) {
		path := writeFile(t, "pw", "  two lines\n\n")
		cfg, err := LoadConfig("", false, []string{"RECUR_MAIL_PASSWORD_FILE=" + path})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Mail.Password, "  two lines\n"; got != want {
			t.Errorf("password = %q, want %q", got, want)
		}
	})
	t.Run("VariableWinsOverFile", func(t *testing.T) {
		// As for every key, the environment wins over recur.toml.
		cfg, err := LoadConfig(writeFile(t, "recur.toml", "[mail]\npassword = \"from toml\"\n"), true,
			[]string{"RECUR_MAIL_PASSWORD_FILE=" + secret})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Mail.Password, "s3cret pass"; got != want {
			t.Errorf("password = %q, want %q", got, want)
		}
		cfg, err = LoadConfig(writeFile(t, "recur.toml", "[mail]\npassword_file = \""+secret+"\"\n"), true,
			[]string{"RECUR_MAIL_PASSWORD=from env"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Mail.Password, "from env"; got != want {
			t.Errorf("password = %q, want %q", got, want)
		}
	})
	missing := filepath.Join(t.TempDir(), "absent")
	for _, c := range []struct {
		name, file string
		env        []string
		want       string
	}{
		{"ErrBothInFile", "[mail]\npassword = \"x\"\npassword_file = \"" + secret + "\"\n", nil,
			"mail.password and mail.password_file are both set; keep one"},
		{"ErrBothInEnvironment", "", []string{"RECUR_MAIL_PASSWORD=x", "RECUR_MAIL_PASSWORD_FILE=" + secret},
			"RECUR_MAIL_PASSWORD and RECUR_MAIL_PASSWORD_FILE are both set; keep one"},
		{"ErrUnreadableFile", "[mail]\npassword_file = \"" + missing + "\"\n", nil,
			"mail.password_file: cannot read " + missing},
		{"ErrUnreadableFileFromVariable", "", []string{"RECUR_MAIL_PASSWORD_FILE=" + missing},
			"RECUR_MAIL_PASSWORD_FILE: mail.password_file: cannot read " + missing},
		{"ErrFileKeyNotText", "[mail]\npassword_file = 3\n", nil, "mail.password_file: must be the path of a file"},
		{"ErrFileOfKeyThatIsNoSecret", "[mail]\nfrom_file = \"" + secret + "\"\n", nil, "mail.from_file: unknown key"},
		{"ErrVariableOfKeyThatIsNoSecret", "", []string{"RECUR_MAIL_FROM_FILE=" + secret}, "RECUR_MAIL_FROM_FILE: unknown variable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadConfig(writeFile(t, "recur.toml", c.file), true, c.env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is more than one line: %q", err)
			}
		})
	}
	t.Run("ErrDirectory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := LoadConfig("", false, []string{"RECUR_MAIL_PASSWORD_FILE=" + dir})
		if err == nil || !strings.Contains(err.Error(), "cannot read "+dir) {
			t.Fatalf("err = %v, want one saying it cannot read the folder", err)
		}
	})
}
