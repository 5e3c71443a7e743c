package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

// build is what the Go toolchain recorded about this binary.
type build struct {
	Version   string
	Commit    string // vcs.revision
	Time      string // vcs.time: when that commit was made, in UTC
	Modified  bool   // vcs.modified: built with uncommitted changes
	GoVersion string
}

// readBuild reads the build information embedded in the binary, with the
// version and commit set when linking (m.Version, m.Commit) over it. Builds
// from a git checkout (go build, go install) carry the commit and its time.
func (m *Main) readBuild() build {
	b := build{Version: "dev"}
	if info, ok := debug.ReadBuildInfo(); ok {
		b = buildFrom(info)
	}
	return b.linked(m.Version, m.Commit)
}

// linked is b with the version and commit set when linking, where set.
func (b build) linked(version, commit string) build {
	if version != "" {
		b.Version = version
	}
	if commit != "" {
		b.Commit = commit
	}
	return b
}

// buildFrom picks the version and the commit out of info.
func buildFrom(info *debug.BuildInfo) build {
	b := build{Version: "dev"}
	b.GoVersion = info.GoVersion
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// print writes the build information, one fact a line.
func (b build) print(w io.Writer) error {
	unknown := func(s string) string {
		if s == "" {
			return "unknown (not built from a git checkout)"
		}
		return s
	}
	_, err := fmt.Fprintf(w, "recur %s\ncommit:   %s\ntime:     %s\nmodified: %t\ngo:       %s\n",
		b.Version, unknown(b.Commit), unknown(b.Time), b.Modified, b.GoVersion)
	return err
}
