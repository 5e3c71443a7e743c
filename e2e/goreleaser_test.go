package e2e

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/recur-journal/recur/internal/tartest"
)

// TestReleaseSnapshot checks .goreleaser.yaml with `goreleaser check`, then
// makes a snapshot release of it for linux amd64 and arm64 (CI has no
// Docker, so no image) and opens what it made: an archive for each with
// the binary, static and for that processor, beside the README, the
// licence and the example configuration, all in checksums.txt. It needs
// goreleaser, which .ci/run installs: CI fails without it; elsewhere the
// test skips.
func TestReleaseSnapshot(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a release snapshot")
	}
	bin, err := exec.LookPath("goreleaser")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("goreleaser is missing: .ci/run installs it with go install")
		}
		t.Skip("goreleaser is not installed (see Development in the README); releases are checked in CI")
	}
	goreleaser := func(timeout time.Duration, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("goreleaser %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goreleaser(time.Minute, "check")

	// The same configuration, for two targets and into a folder of the test.
	raw, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	builds, _ := cfg["builds"].([]any)
	if len(builds) != 1 {
		t.Fatalf("want one build in .goreleaser.yaml, found %d", len(builds))
	}
	build := builds[0].(map[string]any)
	build["goos"], build["goarch"] = []string{"linux"}, []string{"amd64", "arm64"}
	dist := filepath.Join(t.TempDir(), "dist")
	cfg["dist"] = dist
	snapshot, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(config, snapshot, 0o644); err != nil {
		t.Fatal(err)
	}
	goreleaser(10*time.Minute, "release", "--snapshot", "--clean", "--skip=docker,sign,sbom", "--config", config)

	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for arch, machine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		archives, _ := filepath.Glob(filepath.Join(dist, "recur_linux_"+arch+".tar.gz"))
		if len(archives) != 1 {
			t.Errorf("want one archive for linux %s in %s, found %v", arch, dist, archives)
			continue
		}
		if !strings.Contains(string(sums), "  "+filepath.Base(archives[0])+"\n") {
			t.Errorf("checksums.txt does not list %s:\n%s", filepath.Base(archives[0]), sums)
		}
		var names []string
		for _, m := range tartest.Read(t, archives[0]) {
			names = append(names, m.Name)
			if m.Name == "recur" {
				binary := filepath.Join(t.TempDir(), "recur")
				if err := os.WriteFile(binary, m.Data, 0o755); err != nil {
					t.Fatal(err)
				}
				checkStaticBinary(t, binary, machine)
			}
		}
		for _, want := range []string{"recur", "README.md", "LICENSE", "CHANGELOG.md", "config.example.toml", "deploy/recur.service", "deploy/recur.toml"} {
			if !slices.Contains(names, want) {
				t.Errorf("%s holds %v, want %s too", filepath.Base(archives[0]), names, want)
			}
		}
	}
}

// checkStaticBinary checks that path is an executable for machine that
// asks for no dynamic loader, so it runs on any Linux of that processor.
func checkStaticBinary(t *testing.T, path string, machine elf.Machine) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != machine {
		t.Errorf("%s is for %v, want %v", path, f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: it is not static", path)
		}
	}
}
