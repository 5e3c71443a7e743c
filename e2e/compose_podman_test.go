package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// composeUnderPodman runs compose.yaml's service recur, as the file has
// it, with podman-compose 1.0 (Debian 12's), on image, and checks that it
// turns healthy through its own health check. podman-compose hands every
// compose health check to podman as /bin/sh -c '…', which an image
// without a shell cannot run: the image's /bin/sh is recur, which runs
// recur's own commands. The journal outlives down and up. Ollama is left out (no image can be pulled here):
// without it Recur is degraded, which is healthy.
func composeUnderPodman(t *testing.T, p podman, image string) {
	if _, err := exec.LookPath("podman-compose"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("podman-compose is missing: .ci/run installs it with apt-get install podman-compose")
		}
		t.Skip("podman-compose is not installed (apt-get install podman-compose); it is tested in CI")
	}
	raw, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Services map[string]map[string]any `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	recur := file.Services["recur"]
	delete(recur, "depends_on")
	delete(recur, "build")
	only, err := yaml.Marshal(map[string]any{
		"name":     "recur",
		"services": map[string]any{"recur": recur},
		"volumes":  map[string]any{"recur-data": map[string]any{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	composeFile, conf := filepath.Join(dir, "compose.yaml"), filepath.Join(dir, "containers.conf")
	if err := os.WriteFile(composeFile, only, 0o644); err != nil {
		t.Fatal(err)
	}
	// The flags podman gets elsewhere in these tests, as podman-compose's
	// podman reads them.
	settings := "[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\n" +
		"[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=1000:1000\"]\n"
	if err := os.WriteFile(conf, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	project, port := "recur-compose-"+randomSuffix(t), freePort(t)
	compose := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "podman-compose", append([]string{"-p", project, "-f", composeFile}, args...)...)
		cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+conf, "RECUR_IMAGE="+image, "RECUR_PORT="+port)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("podman-compose %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	t.Cleanup(func() {
		if _, err := compose("down", "-v", "-t", "0"); err != nil {
			t.Errorf("clean up: %v", err)
		}
	})
	if _, err := compose("up", "-d"); err != nil {
		t.Fatal(err)
	}
	name := p.must(time.Minute, "ps", "-a", "--filter", "label=io.podman.compose.project="+project, "--format", "{{.Names}}")
	if name == "" || strings.Contains(name, "\n") {
		t.Fatalf("podman-compose started %q, want one container", name)
	}
	t.Logf("podman-compose gave %s the health check %s", name, p.must(time.Minute, "inspect", "--format", "{{json .Config.Healthcheck.Test}}", name))
	if ro := p.must(time.Minute, "inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", name); ro != "true" {
		t.Errorf("the container's root is read-only: %s, want true, as compose.yaml says", ro)
	}
	waitHealthy(t, p, name, "http://127.0.0.1:"+port+"/api")

	// The journal is in the project's volume: it outlives down and up.
	p.must(time.Minute, "exec", name, "recur", "user", "add", "kept@example.com")
	if _, err := compose("down", "-t", "10"); err != nil {
		t.Fatal(err)
	}
	if _, err := compose("up", "-d"); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, p, name, "http://127.0.0.1:"+port+"/api")
	if users := p.must(time.Minute, "exec", name, "recur", "user", "list"); !strings.Contains(users, "kept@example.com") {
		t.Errorf("after down and up, recur user list printed %q, want the user added before", users)
	}
}
