// Package e2e holds the tests that drive Recur whole: the web app in
// headless Chromium (the server runs in the test's process, through
// cli.Main), the container image under Podman, a release snapshot built by
// GoReleaser, and the deployment files (compose.yaml, the systemd unit).
// They skip under -short, and without their tools except in CI (CI=true).
package e2e

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/recur-journal/recur/store/storetest"
)

// TestMain runs the tests from the repository's root, where the Dockerfile,
// compose.yaml, deploy/ and the fixtures are, named as the README names
// them, and closes the browsers they shared.
//
// These tests spend most of their time waiting on other processes
// (chromium's pages, podman, goreleaser's builds), not computing: unless
// -parallel is given, twice as many run at once as go test's default (the
// number of CPUs). Passwords are hashed cheaply: these tests are about
// signing in, not the hash (store's tests hold it).
func TestMain(m *testing.M) {
	storetest.CheapPasswords()
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	closeSharedBrowsers()
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
