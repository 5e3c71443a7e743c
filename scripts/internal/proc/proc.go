// Package proc holds what the measuring programs under scripts/ share:
// building recur into a private folder, and reading a process's memory.
package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Build makes a temporary folder named after prefix and builds recur from
// the current folder into it, as a release is built (static, without symbol
// tables; see the Dockerfile), so the figures are those of what ships. It
// returns the folder, which the caller removes, and the binary's path.
func Build(prefix string) (dir, bin string, err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "recur")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("build: %w", err)
	}
	return dir, bin, nil
}

// Memory reads a field of /proc/PID/status, such as VmRSS or VmHWM, in
// bytes; 0 when it cannot.
func Memory(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
