// Command recur is a private journal that notices what keeps coming back.
// One binary serves the API and the web app, keeps everything in one SQLite
// file and reads each entry with a local model (Ollama, or any
// OpenAI-compatible server). The commands are in package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/recur-journal/recur/cli"
	"github.com/recur-journal/recur/internal/sh"
)

// version and commit may be set when linking, as release builds and the
// image do (-ldflags "-X main.version=v1.0.0 -X main.commit=<hash>"): such a
// build has no git checkout for the Go toolchain to read. Left empty, they
// come from what the toolchain stamped (see cli.Main's Version).
var version, commit string

func main() {
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "sh" {
		// The container image's /bin/sh: it runs recur's own commands only.
		var code int
		if args, code = sh.Recur(args, os.Stderr); args == nil {
			os.Exit(code)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := cli.NewMain()
	m.Version, m.Commit = version, commit
	code := m.Exec(ctx, args)
	stop()
	os.Exit(code)
}
