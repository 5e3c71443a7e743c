// Package e2e holds the tests that drive Recur whole: the web app in
// headless Chromium (the server runs in the test's process, through
// cli.Main), the container image under Podman, a release snapshot built by
// GoReleaser, and the deployment files (compose.yaml, the systemd unit).
// They skip under -short, and without their tools except in CI (CI=true).
package e2e

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests from the repository's root, where the Dockerfile,
// compose.yaml, deploy/ and the fixtures are, named as the README names
// them.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	closeSharedBrowser()
	os.Exit(code)
}

// readFile returns the file at path (from the repository's root).
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
