package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/recur-journal/recur/cli"
)

// composeFile is the part of compose.yaml the checks below read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       string            `yaml:"build"`
	Restart     string            `yaml:"restart"`
	Ports       []string          `yaml:"ports"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Command     []string          `yaml:"command"`
	Deploy      any               `yaml:"deploy"`
	ReadOnly    bool              `yaml:"read_only"`
	Tmpfs       []string          `yaml:"tmpfs"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// interpolate replaces compose's ${NAME:-default} by the default, as
// compose does when NAME is unset.
func interpolate(s string) string {
	return regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`).ReplaceAllString(s, "$1")
}

// readCompose reads compose.yaml, and its text.
func readCompose(t *testing.T) (composeFile, []byte) {
	t.Helper()
	raw, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("compose.yaml is not valid YAML: %v", err)
	}
	return c, raw
}

// composeRecur is compose.yaml's service recur.
func composeRecur(t *testing.T) composeService {
	c, _ := readCompose(t)
	return c.Services["recur"]
}

func TestComposeFile(t *testing.T) {
	t.Parallel()
	c, raw := readCompose(t)
	recur, ollama, pull := c.Services["recur"], c.Services["ollama"], c.Services["ollama-pull"]

	t.Run("RecurFromTheDockerfile", func(t *testing.T) {
		if recur.Build != "." {
			t.Errorf("recur builds from %q, want the Dockerfile beside compose.yaml", recur.Build)
		}
		if hc := recur.Healthcheck; hc == nil || !slices.Equal(hc.Test, dockerfileHealthcheck(t)) {
			t.Errorf("recur's health check is %v, want the Dockerfile's %v", hc, dockerfileHealthcheck(t))
		}
		if !slices.Contains(recur.Volumes, "recur-data:"+dockerfileVolume(t)) {
			t.Errorf("recur mounts %v, want the volume recur-data on the Dockerfile's %s", recur.Volumes, dockerfileVolume(t))
		}
		for _, p := range recur.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("port %q is published beyond the loopback address", p)
			}
		}
	})
	t.Run("ReadOnlyWithTmpfs", func(t *testing.T) {
		// TestContainer runs the image with these and no other writable place.
		if !recur.ReadOnly || !slices.ContainsFunc(recur.Tmpfs, func(s string) bool { return strings.HasPrefix(s, "/tmp:") || s == "/tmp" }) {
			t.Errorf("recur has read_only %v and tmpfs %v, want a read-only root and /tmp in memory", recur.ReadOnly, recur.Tmpfs)
		}
	})
	t.Run("BaseURLFromEnvFile", func(t *testing.T) {
		if got, want := recur.Environment["RECUR_SERVER_BASE_URL"], "${RECUR_BASE_URL:-http://127.0.0.1:8080}"; got != want {
			t.Errorf("RECUR_SERVER_BASE_URL is %q, want %q: set in .env, with a default", got, want)
		}
	})
	t.Run("RecurSettingsAreKeys", func(t *testing.T) {
		var env []string
		for k, v := range recur.Environment {
			env = append(env, k+"="+interpolate(v))
		}
		cfg, err := cli.LoadConfig("", false, env)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Model.URL, "http://ollama:11434"; got != want {
			t.Errorf("Recur asks Ollama at %q, want the service by name, %q", got, want)
		}
		cfg.Server.Addr = "0.0.0.0:8080" // the image's, from its Dockerfile
		if problem := cfg.BaseURLProblem(); problem != "" {
			t.Errorf("in the container, base_url is %s", problem)
		}
	})
	t.Run("Ollama", func(t *testing.T) {
		if ollama.Image != "ollama/ollama" || pull.Image != "ollama/ollama" {
			t.Errorf("images %q and %q, want the official ollama/ollama", ollama.Image, pull.Image)
		}
		if !slices.Contains(ollama.Volumes, "ollama-models:/root/.ollama") {
			t.Errorf("ollama mounts %v, want a volume for its models", ollama.Volumes)
		}
		if ollama.Healthcheck == nil || len(ollama.Healthcheck.Test) == 0 {
			t.Error("ollama has no health check")
		}
		if ollama.Deploy != nil || !strings.Contains(string(raw), "#         - driver: nvidia") {
			t.Error("the GPU stanza should be there, commented out")
		}
	})
	t.Run("PullsTheConfiguredModels", func(t *testing.T) {
		if pull.Restart != "no" {
			t.Errorf("ollama-pull restarts %q, want a one-shot service", pull.Restart)
		}
		if got := pull.Environment["OLLAMA_HOST"]; got != "http://ollama:11434" {
			t.Errorf("ollama-pull talks to %q", got)
		}
		script := strings.Join(pull.Command, " ")
		for _, key := range []string{"RECUR_MODEL_NAME", "RECUR_MODEL_EMBED_NAME"} {
			if model := recur.Environment[key]; model == "" || !strings.Contains(script, "ollama pull "+model) {
				t.Errorf("ollama-pull (%q) does not pull %s, %q", script, key, model)
			}
		}
	})
	t.Run("StartsInOrder", func(t *testing.T) {
		for name, cond := range map[string]string{"recur": recur.DependsOn["ollama"].Condition, "ollama-pull": pull.DependsOn["ollama"].Condition} {
			if cond != "service_healthy" {
				t.Errorf("%s waits for ollama until %q, want service_healthy", name, cond)
			}
		}
	})
	t.Run("VolumesDeclared", func(t *testing.T) {
		for name, s := range c.Services {
			for _, v := range s.Volumes {
				vol, _, _ := strings.Cut(v, ":")
				if _, ok := c.Volumes[vol]; !ok {
					t.Errorf("%s mounts %q, which is not declared under volumes", name, vol)
				}
			}
		}
	})
}

// dockerfileHealthcheck is the command of the Dockerfile's HEALTHCHECK.
func dockerfileHealthcheck(t *testing.T) []string {
	line := dockerfileLine(t, "HEALTHCHECK ")
	_, cmd, ok := strings.Cut(line, " CMD ")
	var args []string
	if !ok || yaml.Unmarshal([]byte(cmd), &args) != nil { // a JSON array is YAML too
		t.Fatalf("HEALTHCHECK %q has no exec-form CMD", line)
	}
	return append([]string{"CMD"}, args...)
}

func dockerfileVolume(t *testing.T) string {
	return strings.TrimPrefix(dockerfileLine(t, "VOLUME "), "VOLUME ")
}

func dockerfileLine(t *testing.T, prefix string) string {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return sc.Text()
		}
	}
	t.Fatalf("the Dockerfile has no %s line", prefix)
	return ""
}

func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("deploy/recur.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	t.Run("Settings", func(t *testing.T) {
		for _, want := range []string{"Type=notify", "WatchdogSec=30s", "User=recur", "StateDirectory=recur recur/backups",
			"ExecStart=/usr/local/bin/recur serve --config /etc/recur/recur.toml", "ExecReload=/bin/kill -HUP $MAINPID",
			"ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "ProtectHome=yes", "CapabilityBoundingSet=\n"} {
			if !strings.Contains(unit, "\n"+want) {
				t.Errorf("the unit lacks %q", strings.TrimSpace(want))
			}
		}
		// A static user, so that the owner can run commands as it.
		if strings.Contains(unit, "\nDynamicUser=yes") {
			t.Error("the unit has DynamicUser=yes")
		}
	})
	t.Run("RestartHasAReason", func(t *testing.T) {
		before, _, ok := strings.Cut(unit, "\nRestart=")
		if lines := strings.Split(before, "\n"); !ok || !strings.HasPrefix(lines[len(lines)-1], "# ") {
			t.Error("Restart= is missing or has no comment above it saying why")
		}
	})
	t.Run("BackupFolderWritable", func(t *testing.T) {
		// The settings the unit reads, as systemd runs it: the backups go to
		// a folder the sandbox lets Recur write.
		var dirs []string
		for _, d := range unitValues(unit, "StateDirectory") {
			dirs = append(dirs, "/var/lib/"+d)
		}
		cfg, err := cli.LoadConfig("deploy/recur.toml", true, []string{"STATE_DIRECTORY=" + strings.Join(dirs, ":")})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Storage.DataDir, dirs[0]; got != want {
			t.Errorf("data_dir is %q, want the unit's first state directory %q", got, want)
		}
		if writable := append(dirs, unitValues(unit, "ReadWritePaths")...); cfg.Backup.Dir == "" || !slices.Contains(writable, cfg.Backup.Dir) {
			t.Errorf("[backup] dir is %q, want one of the folders the unit may write, %q", cfg.Backup.Dir, writable)
		}
		if readme := string(readFile(t, "README.md")); !strings.Contains(readme, "recur backup --config /etc/recur/recur.toml "+cfg.Backup.Dir+"/") {
			t.Errorf("the README's systemd section does not back up by hand into %s", cfg.Backup.Dir)
		}
	})
	t.Run("OwnerCommand", func(t *testing.T) {
		// The unit's and the README's command runs as the unit's user with
		// the configuration the service reads.
		cmd := regexp.MustCompile(`sudo -u (\S+) recur (user add .*)`).FindStringSubmatch(unit)
		if cmd == nil {
			t.Fatal("the unit's comments show no command run as its user")
		}
		if got, want := cmd[1], unitValues(unit, "User")[0]; got != want {
			t.Errorf("the command runs as %q, the service as %q", got, want)
		}
		if !strings.Contains(string(readFile(t, "README.md")), cmd[0]) {
			t.Errorf("the README does not show %q", cmd[0])
		}
		m := cli.NewMain()
		m.Stdout, m.Stderr = io.Discard, io.Discard
		if err := m.ParseFlags(strings.Fields(cmd[2])); err != nil {
			t.Fatalf("%q: %v", cmd[2], err)
		}
		if start := regexp.MustCompile(`\nExecStart=.* --config (\S+)`).FindStringSubmatch(unit); start == nil || m.ConfigPath != start[1] {
			t.Errorf("the command reads %q, the service's ExecStart %q", m.ConfigPath, start)
		}
	})
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install systemd)")
	}
	// verify checks that ExecStart names an executable: point it at one.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "recur.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(unit, "/usr/local/bin/recur", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("Verify", func(t *testing.T) {
		// It warns of unknown keys and bad values and still exits 0: any
		// word from it is a failure.
		out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
		}
	})
	t.Run("Exposure", func(t *testing.T) {
		out, err := exec.Command(analyze, "security", "--offline=true", path).CombinedOutput()
		if err != nil {
			t.Skipf("this systemd-analyze cannot rate a unit file offline: %v", err)
		}
		m := regexp.MustCompile(`Overall exposure level for recur.service: ([0-9.]+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("no exposure level in:\n%s", out)
		}
		if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 1.5 {
			t.Errorf("the unit's exposure level is %.1f, want at most 1.5 (systemd rates 0 best, 10 worst)", level)
		}
	})
}

// unitValues is the space-separated values of the unit's lines KEY=.
func unitValues(unit, key string) []string {
	var values []string
	for line := range strings.SplitSeq(unit, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			values = append(values, strings.Fields(v)...)
		}
	}
	return values
}

// TestToolchainPinnedEverywhere guards one Go release for every build:
// go.mod's toolchain line, the Dockerfile's build stage and the workflow's
// image name the same, while the go line stays the oldest Go that builds.
func TestToolchainPinnedEverywhere(t *testing.T) {
	t.Parallel()
	mod := string(readFile(t, "go.mod"))
	toolchain := regexp.MustCompile(`(?m)^toolchain go(\S+)$`).FindStringSubmatch(mod)
	if toolchain == nil || !regexp.MustCompile(`(?m)^go 1\.\d+\.\d+$`).MatchString(mod) {
		t.Fatal("go.mod wants a go line and a toolchain line")
	}
	if got := strings.TrimPrefix(dockerfileLine(t, "ARG GO_VERSION="), "ARG GO_VERSION="); got != toolchain[1] {
		t.Errorf("the Dockerfile builds with Go %s, go.mod's toolchain is %s", got, toolchain[1])
	}
	if wf := string(readFile(t, ".github/workflows/test.yaml")); !strings.Contains(wf, "image: golang:"+toolchain[1]+"-") {
		t.Errorf("the test workflow does not run in the golang:%s image", toolchain[1])
	}
}
