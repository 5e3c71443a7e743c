package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/apitest"
	"github.com/recur-journal/recur/internal/wait"
)

// maxImageBytes is the most the image may weigh.
const maxImageBytes = 30 << 20

// podman runs podman with the flags a CI machine without cgroup delegation
// needs (kept here: users run the image with their own defaults).
type podman struct {
	t *testing.T
}

// run runs podman with args, bounded by timeout, and returns its output.
func (p podman) run(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args = append([]string{"--runtime", "runc", "--cgroup-manager=cgroupfs"}, args...)
	cmd := exec.CommandContext(ctx, "podman", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("podman %s: %w\n%s", strings.Join(args[3:], " "), err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

func (p podman) must(timeout time.Duration, args ...string) string {
	p.t.Helper()
	out, err := p.run(timeout, args...)
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

// TestContainer builds the image's final stage from a binary built here,
// runs it read-only with a named volume, waits for its health check, makes
// a user and a token inside it, posts a capture, restarts the container and
// finds the capture in the volume; meanwhile it runs compose.yaml's
// service with podman-compose, and the image as another user on a folder
// of the host. It needs podman (and root, or a user podman works
// for): CI installs it and fails without it; elsewhere the test skips.
//
// It runs before the tests run in parallel, alone, not beside the browser
// tests: each container podman starts or removes adds or drops a network
// interface, which chromium takes for a change of network, and it breaks
// off the requests its pages have under way (net::ERR_NETWORK_CHANGED),
// such as the stream of events a page waits on.
func TestContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a container image")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("podman is missing: .ci/run installs it with apt-get install podman runc")
		}
		t.Skip("podman is not installed (apt-get install podman runc); the image is tested in CI")
	}
	p := podman{t}
	suffix := randomSuffix(t)
	image, volume, name := "localhost/recur-test-"+suffix, "recur-test-"+suffix, "recur-test-"+suffix

	// CI pulls nothing: the stage named build, which compiles Recur in the
	// golang image, is replaced by a folder holding the binary where that
	// stage leaves it (<os>/<arch>/recur), as a release build does.
	binDir, ctxDir := t.TempDir(), t.TempDir()
	wantVersion, wantCommit := "v0.0.0-container", "c0mm17-"+suffix
	ldflags := "-s -w -X main.version=" + wantVersion + " -X main.commit=" + wantCommit
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags,
		"-o", filepath.Join(binDir, "linux", runtime.GOARCH, "recur"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A binary built under a private umask (077, as recur serve sets for
	// itself) must still run as the image's user: the image gives it its mode.
	if err := os.Chmod(filepath.Join(binDir, "linux", runtime.GOARCH, "recur"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Dockerfile", ".dockerignore", "deploy/container/etc/passwd", "deploy/container/etc/group", "deploy/container/empty/.gitkeep", "deploy/container/bin/sh"} {
		copyFile(t, f, filepath.Join(ctxDir, f))
	}

	t.Cleanup(func() {
		// Each removal is tried whatever happened before; none may be left.
		for _, args := range [][]string{{"rm", "-f", "-t", "0", name}, {"rm", "-f", "-t", "0", name + "-bind"}, {"volume", "rm", "-f", volume}, {"rmi", "-f", image}} {
			if _, err := p.run(time.Minute, args...); err != nil {
				t.Errorf("clean up: %v", err)
			}
		}
	})
	p.must(5*time.Minute, "build", "--pull=never", "--build-context", "build="+binDir,
		"--format", "docker", "--layers=false", "-t", image, ctxDir)

	t.Run("Image", func(t *testing.T) {
		size, err := strconv.ParseInt(p.must(time.Minute, "image", "inspect", "--format", "{{.Size}}", image), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if size >= maxImageBytes {
			t.Errorf("the image is %d bytes, want under %d", size, maxImageBytes)
		}
		if user := p.must(time.Minute, "image", "inspect", "--format", "{{.Config.User}}", image); user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
			t.Errorf("the image runs as %q, want a user other than root", user)
		}
		if hc := p.must(time.Minute, "image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", image); hc != `["CMD","recur","health"]` {
			t.Errorf("the image's health check is %s, want recur health", hc)
		}
	})

	// It runs as compose.yaml runs it: a read-only root with the tmpfs
	// compose.yaml names and no other.
	readOnly := []string{"--read-only", "--read-only-tmpfs=false"}
	for _, tmpfs := range composeRecur(t).Tmpfs {
		readOnly = append(readOnly, "--tmpfs", tmpfs)
	}
	limits := []string{"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000"}
	// The journal, the compose file and the bind mount are tried at once,
	// each in a container of its own: they wait on podman, not on each
	// other.
	t.Run("VolumeAcrossRestart", func(t *testing.T) {
		t.Parallel()
		p := podman{t}
		port := freePort(t)
		base := "http://127.0.0.1:" + port + "/api"
		p.must(time.Minute, "volume", "create", volume)
		run := append(append([]string{"run", "-d", "--name", name}, limits...), readOnly...)
		p.must(2*time.Minute, append(run, "-p", "127.0.0.1:"+port+":8080", "-v", volume+":/data", image)...)
		waitHealthy(t, p, name, base)

		id := p.must(time.Minute, "exec", name, "recur", "user", "add", "owner@example.com")
		token := p.must(time.Minute, "exec", name, "recur", "token", "create", "owner@example.com")
		if id == "" || !strings.Contains(token, "|") {
			t.Fatalf("user add printed %q, token create %q", id, token)
		}
		c := apitest.Client{T: t, Base: base, Token: token, HTTP: &http.Client{Timeout: 10 * time.Second}}
		text := "Written in the container, kept in the volume " + suffix + "."
		status, created := c.Do("POST", "/captures", `{"text":"`+text+`"}`)
		data, _ := created["data"].(map[string]any)
		captureID, _ := data["id"].(string)
		if status != http.StatusCreated || captureID == "" {
			t.Fatalf("POST /captures = %d %v", status, created)
		}

		started := p.must(time.Minute, "inspect", "--format", "{{.State.StartedAt}}", name)
		p.must(time.Minute, "restart", "-t", "20", name)
		if again := p.must(time.Minute, "inspect", "--format", "{{.State.StartedAt}}", name); again == started {
			t.Fatalf("the container did not restart: started at %s both times", started)
		}
		waitHealthy(t, p, name, base)
		status, got := c.Do("GET", "/captures/"+captureID, "")
		data, _ = got["data"].(map[string]any)
		if status != http.StatusOK || data["original"] != text {
			t.Fatalf("after the restart GET /captures/%s = %d %v, want the capture with its text", captureID, status, got)
		}
		if out := p.must(time.Minute, "exec", name, "recur", "version"); !strings.HasPrefix(out, "recur "+wantVersion+"\n") || !strings.Contains(out, "commit:   "+wantCommit+"\n") {
			t.Errorf("recur version in the image printed %q, want the version and commit it was linked with", out)
		}
	})

	t.Run("PodmanCompose", func(t *testing.T) {
		t.Parallel()
		composeUnderPodman(t, podman{t}, image)
	})

	t.Run("BindMountWithUser", func(t *testing.T) {
		t.Parallel()
		p := podman{t}
		// A folder of the host owned by the user compose.yaml's user: names.
		if os.Geteuid() != 0 {
			t.Skip("making a folder another user owns needs root")
		}
		dir, uid := t.TempDir(), 4321
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
		port := freePort(t)
		bind := name + "-bind"
		run := append(append([]string{"run", "-d", "--name", bind, "--user", fmt.Sprintf("%d:%d", uid, uid)}, limits...), readOnly...)
		p.must(2*time.Minute, append(run, "-p", "127.0.0.1:"+port+":8080", "-v", dir+":/data", image)...)
		waitHealthy(t, p, bind, "http://127.0.0.1:"+port+"/api")
		// The folder is 0700: only its owner (no capability is left to
		// the container's user) could have written the journal there.
		if _, err := os.Stat(filepath.Join(dir, "recur", "recur.db")); err != nil {
			t.Fatalf("the journal is not in the bind-mounted folder: %v", err)
		}
	})
}

// waitHealthy waits, for at most a minute, until the container's own
// health check (the image's HEALTHCHECK, recur health) passes and the
// published port answers the health check with 200.
func waitHealthy(t *testing.T, p podman, name, base string) {
	t.Helper()
	client := &http.Client{Timeout: 3 * time.Second}
	var last error
	healthy := func() bool {
		if _, last = p.run(30*time.Second, "healthcheck", "run", name); last != nil {
			return false
		}
		res, err := client.Get(base + "/health-check")
		if err != nil {
			last = err
			return false
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var h struct {
			Data struct{ Status string } `json:"data"`
		}
		json.Unmarshal(body, &h)
		// No Ollama runs beside the test: degraded is the healthy answer.
		if res.StatusCode == http.StatusOK && (h.Data.Status == "ok" || h.Data.Status == "degraded") {
			return true
		}
		last = fmt.Errorf("health check answered %d %s", res.StatusCode, body)
		return false
	}
	// Each check runs podman: at most every quarter second.
	wait.EventuallyEvery(t, time.Minute, 250*time.Millisecond, "the container turning healthy", healthy, func() string {
		logs, _ := p.run(time.Minute, "logs", name)
		return fmt.Sprintf("last: %v\nits log:\n%s", last, logs)
	})
}

// freePort is a loopback port nothing listens on at the moment.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func randomSuffix(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// copyFile copies a file, or the link it is, making the folders to it.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(from); err == nil {
		if err := os.Symlink(target, to); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
