// Command recur is a private journal that notices what keeps coming back.
// One binary serves the API and the web app, keeps everything in one SQLite
// file and reads each entry with a local model (Ollama, or any
// OpenAI-compatible server). The commands are in package cli.
package main

import (
	"os"

	"github.com/recur-journal/recur/cli"
)

// version and commit may be set when linking, as release builds and the
// image do (-ldflags "-X main.version=v1.0.0 -X main.commit=<hash>"): such a
// build has no git checkout for the Go toolchain to read. Left empty, they
// come from what the toolchain stamped (see cli.Main's Version).
var version, commit string

func main() {
	os.Exit(cli.Command(os.Args, version, commit))
}
