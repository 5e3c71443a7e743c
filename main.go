// Command recur is a private journal that notices what keeps coming back.
// One binary serves the API and the web app, keeps everything in one SQLite
// file and reads each entry with a local model served by Ollama. The
// commands are in package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/recur-journal/recur/cli"
)

// version and commit may be set when linking, as release builds and the
// image do (-ldflags "-X main.version=v1.0.0 -X main.commit=<hash>"): such a
// build has no git checkout for the Go toolchain to read. Left empty, they
// come from what the toolchain stamped (see cli.Main's Version).
var version, commit string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := cli.NewMain()
	m.Version, m.Commit = version, commit
	code := m.Exec(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
