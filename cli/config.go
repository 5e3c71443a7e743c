package cli

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/recur-journal/recur/server"
)

// Config is recur.toml. Every key has a default, so an empty file (or none)
// is a working configuration. Each key can be overridden by the environment
// variable RECUR_<SECTION>_<KEY>, such as RECUR_SERVER_ADDR. A key tagged
// secret:"true" can also be read from a file (see configKey).
type Config struct {
	Server  ServerConfig  `toml:"server"`
	Storage StorageConfig `toml:"storage"`
	Model   ModelConfig   `toml:"model"`
	Ollama  OllamaConfig  `toml:"ollama"` // the older name of [model]; see adoptOllama
	Mail    MailConfig    `toml:"mail"`
	Auth    AuthConfig    `toml:"auth"`
	Log     LogConfig     `toml:"log"`
	Backup  BackupConfig  `toml:"backup"`
	Metrics MetricsConfig `toml:"metrics"`
	Notify  NotifyConfig  `toml:"notify"`
	Push    PushConfig    `toml:"push"`

	// Deprecated is the line said at start when the configuration uses
	// names that are going away; empty when it does not.
	Deprecated string `toml:"-"`
}

// ServerConfig is the [server] section.
type ServerConfig struct {
	Addr         string   `toml:"addr"`
	BaseURL      string   `toml:"base_url"`
	MaxBodyBytes int64    `toml:"max_body_bytes"`
	ShutdownWait Duration `toml:"shutdown_timeout"`
	// TrustedProxies are CIDRs or addresses of reverse proxies whose
	// X-Forwarded-For names the client; RECUR_SERVER_TRUSTED_PROXIES
	// takes them comma-separated.
	TrustedProxies []string `toml:"trusted_proxies"`
}

// StorageConfig is the [storage] section.
type StorageConfig struct {
	DataDir string `toml:"data_dir"`
}

// ModelConfig is the [model] section: the model server and its models.
type ModelConfig struct {
	// Provider is "ollama" or "openai" (any OpenAI-compatible server).
	Provider string `toml:"provider"`
	// URL is the server's address; for openai the API's base, /v1 included.
	URL       string   `toml:"url"`
	Name      string   `toml:"name"`
	EmbedName string   `toml:"embed_name"`
	APIKey    string   `toml:"api_key" secret:"true"`
	Timeout   Duration `toml:"timeout"`
	Workers   int      `toml:"workers"`
}

// OllamaConfig is the [ollama] section, the older name of [model], which
// still works (see adoptOllama). It has no defaults: [model] has them.
type OllamaConfig struct {
	URL        string   `toml:"url"`
	Model      string   `toml:"model"`
	EmbedModel string   `toml:"embed_model"`
	Timeout    Duration `toml:"timeout"`
	Workers    int      `toml:"workers"`
}

// MailConfig is the [mail] section.
type MailConfig struct {
	SMTPHost string `toml:"smtp_host"`
	SMTPPort int    `toml:"smtp_port"`
	Username string `toml:"username"`
	Password string `toml:"password" secret:"true"`
	From     string `toml:"from"`
	TLS      string `toml:"tls"`
}

// AuthConfig is the [auth] section.
type AuthConfig struct {
	Signup          bool     `toml:"signup"`
	SessionLifetime Duration `toml:"session_lifetime"`
	TokenLifetime   Duration `toml:"token_lifetime"`
}

// NotifyConfig is the [notify] section: where users' notifications may go.
type NotifyConfig struct {
	// AllowPrivateTargets lets webhooks aim at loopback, private and
	// link-local addresses, such as a receiver on the home network.
	AllowPrivateTargets bool `toml:"allow_private_targets"`
}

// PushConfig is the [push] section: sending to the mobile app's push tokens.
type PushConfig struct {
	// FCMCredentialsFile is a Google service account's JSON key; set, events
	// go to the push tokens registered at /api/fcm-tokens/me through FCM.
	FCMCredentialsFile string `toml:"fcm_credentials_file"`
	// FCMURL is where FCM's HTTP v1 API is served (for a test double or a proxy).
	FCMURL string `toml:"fcm_url"`
}

// LogConfig is the [log] section.
type LogConfig struct {
	Level  string `toml:"level"`
	Format string `toml:"format"`
}

// Duration is a time.Duration written as "30s", "5m" or "720h".
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration; write it like 30s, 5m or 720h", b)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DefaultConfig returns the configuration used when nothing is set.
func DefaultConfig() Config {
	return Config{
		Server: ServerConfig{Addr: "127.0.0.1:8080", MaxBodyBytes: 1 << 20, ShutdownWait: Duration{15 * time.Second},
			TrustedProxies: []string{}},
		Backup:  BackupConfig{Interval: Duration{24 * time.Hour}, Keep: 7},
		Storage: StorageConfig{DataDir: "./data"},
		Model: ModelConfig{Provider: "ollama", URL: "http://127.0.0.1:11434", Name: "qwen2.5:7b", EmbedName: "nomic-embed-text",
			Timeout: Duration{5 * time.Minute}, Workers: 2},
		Mail: MailConfig{SMTPPort: 587, From: "Recur <recur@localhost>", TLS: "starttls"},
		Auth: AuthConfig{SessionLifetime: Duration{30 * 24 * time.Hour}, TokenLifetime: Duration{365 * 24 * time.Hour}},
		Log:  LogConfig{Level: "info", Format: "text"},
	}
}

// ConfigError is a configuration problem, told in one line that names the key.
type ConfigError struct {
	Key    string
	Source string // the file or environment variable
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("config %s: %s", e.Source, e.Reason)
	}
	return fmt.Sprintf("config %s: %s: %s", e.Source, e.Key, e.Reason)
}

// LoadConfig reads path over the defaults (a missing file is fine when
// required is false), applies RECUR_* variables from environ and checks the
// result. Under systemd, STATE_DIRECTORY replaces the default data folder.
func LoadConfig(path string, required bool, environ []string) (Config, error) {
	cfg := DefaultConfig()
	if dir := stateDirectory(environ); dir != "" {
		cfg.Storage.DataDir = dir
	}
	files := map[string]secretPath{} // secrets read from files, by key
	var md toml.MetaData
	if path != "" {
		text, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist) && !required:
		case err != nil:
			return cfg, tomlError(path, err)
		default:
			md, err = toml.Decode(string(text), &cfg)
			if err != nil {
				return cfg, tomlError(path, err)
			}
			if err := fileSecrets(&cfg, path, string(text), md, files); err != nil {
				return cfg, err
			}
		}
	}
	if err := applyEnvOver(&cfg, environ, files); err != nil {
		return cfg, err
	}
	legacy, err := cfg.adoptOllama(path, md, environ)
	if err != nil {
		return cfg, err
	}
	return cfg, legacy.rename(cfg.Validate())
}

// stateDirectory is the folder systemd made for the service
// (StateDirectory=), the data folder's default when set: the first of the
// colon-separated list in STATE_DIRECTORY.
func stateDirectory(environ []string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "STATE_DIRECTORY="); ok {
			dir, _, _ := strings.Cut(v, ":")
			return dir
		}
	}
	return ""
}

// tomlError turns a TOML decoding error into one line naming the key.
func tomlError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		reason, key := pe.Message, pe.LastKey
		if key == "" {
			return &ConfigError{Source: fmt.Sprintf("%s line %d", path, pe.Position.Line), Reason: reason}
		}
		return &ConfigError{Source: path, Key: key, Reason: reason}
	}
	return &ConfigError{Source: path, Reason: err.Error()}
}

func setField(f reflect.Value, value string) error {
	if u, ok := f.Addr().Interface().(interface{ UnmarshalText([]byte) error }); ok {
		return u.UnmarshalText([]byte(value))
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%q is not true or false", value)
		}
		f.SetBool(b)
	case reflect.Slice:
		var list []string
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				list = append(list, v)
			}
		}
		f.Set(reflect.ValueOf(list))
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", value)
		}
		f.SetInt(n)
	default:
		return fmt.Errorf("cannot be set from the environment")
	}
	return nil
}

// Validate checks values a parser cannot: ranges, choices and URLs.
func (c *Config) Validate() error {
	bad := func(key, format string, args ...any) error {
		return &ConfigError{Source: "value", Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	if _, _, err := net.SplitHostPort(c.Server.Addr); err != nil {
		return bad("server.addr", "%q is not host:port, like 127.0.0.1:8080", c.Server.Addr)
	}
	if c.Server.BaseURL != "" {
		if u, err := url.Parse(c.Server.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("server.base_url", "%q is not an http or https URL, like https://journal.example.com", c.Server.BaseURL)
		}
	}
	if _, err := server.ParseTrustedProxies(c.Server.TrustedProxies); err != nil {
		return bad("server.trusted_proxies", "%v", err)
	}
	if c.Server.MaxBodyBytes < 1024 {
		return bad("server.max_body_bytes", "must be at least 1024")
	}
	if c.Storage.DataDir == "" {
		return bad("storage.data_dir", "must name a folder")
	}
	if err := c.Backup.validate(); err != nil {
		return err
	}
	if err := c.Metrics.validate(); err != nil {
		return err
	}
	if err := c.Model.validate(); err != nil {
		return err
	}
	if !slices.Contains([]string{"starttls", "tls", "none"}, c.Mail.TLS) {
		return bad("mail.tls", "%q is not one of starttls, tls or none", c.Mail.TLS)
	}
	if c.Mail.SMTPPort < 1 || c.Mail.SMTPPort > 65535 {
		return bad("mail.smtp_port", "must be 1 to 65535")
	}
	if c.Auth.SessionLifetime.Duration <= 0 {
		return bad("auth.session_lifetime", "must be positive")
	}
	if c.Auth.TokenLifetime.Duration < 0 {
		return bad("auth.token_lifetime", "may not be negative (0 means tokens never expire)")
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level) {
		return bad("log.level", "%q is not one of debug, info, warn or error", c.Log.Level)
	}
	if !slices.Contains([]string{"text", "json"}, c.Log.Format) {
		return bad("log.format", "%q is not text or json", c.Log.Format)
	}
	return nil
}

// BaseURL is where people reach the server, for mailed links: base_url,
// or http://<addr> when addr is a loopback address (only this machine can
// open Recur, at that address). Otherwise it is "": the address people use
// cannot be known, since a request's Host may be anyone's.
func (c *Config) BaseURL() string {
	if c.Server.BaseURL != "" {
		return strings.TrimRight(c.Server.BaseURL, "/")
	}
	if loopback(c.Server.Addr) {
		return "http://" + c.Server.Addr
	}
	return ""
}

// DBPath is the database file inside the data folder.
func (c *Config) DBPath() string { return filepath.Join(c.Storage.DataDir, "recur.db") }

// prepareDataDir makes the data folder and proves it writable.
func (c *Config) prepareDataDir() error {
	dir := c.Storage.DataDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &ConfigError{Source: "value", Key: "storage.data_dir", Reason: fmt.Sprintf("cannot create %s: %v", dir, errors.Unwrap(err))}
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return &ConfigError{Source: "value", Key: "storage.data_dir", Reason: fmt.Sprintf("%s is not writable: %v", dir, errors.Unwrap(err))}
	}
	f.Close()
	return os.Remove(f.Name())
}
