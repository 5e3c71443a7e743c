// Command coldstart builds recur and prints three start-up figures: how long
// `recur version` takes, how long `recur serve` takes to its first health
// answer (both the median of several runs), and the server's resident
// memory once it has been idle for a while. It uses a fresh data folder
// and a loopback port, and an Ollama address nothing listens on.
//
//	go run ./scripts/coldstart [-runs 10] [-idle 60s]
//
// Linux only: it reads /proc. It is not part of go test.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/recur-journal/recur/scripts/internal/proc"
)

func main() {
	runs := flag.Int("runs", 10, "runs of each start to take the median of")
	idle := flag.Duration("idle", time.Minute, "how long the server idles before its memory is read")
	flag.Parse()
	if err := run(*runs, *idle); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(runs int, idle time.Duration) error {
	dir, bin, err := proc.Build("recur-coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "RECUR_STORAGE_DATA_DIR="+filepath.Join(dir, "data"), "RECUR_MODEL_URL=http://127.0.0.1:1")

	// The first serve makes and migrates the database; it is not counted.
	if _, _, err := serve(bin, env, 0); err != nil {
		return err
	}
	var version, up []time.Duration
	for range runs {
		cmd := exec.Command(bin, "version")
		cmd.Env = env
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("recur version: %w", err)
		}
		version = append(version, time.Since(start))
		took, _, err := serve(bin, env, 0)
		if err != nil {
			return err
		}
		up = append(up, took)
	}
	fmt.Printf("recur version:                 %v (median of %d)\n", median(version), runs)
	fmt.Printf("serve to first health answer:  %v (median of %d)\n", median(up), runs)
	_, rss, err := serve(bin, env, idle)
	if err != nil {
		return err
	}
	fmt.Printf("idle RSS after %v:          %.1f MB\n", idle, float64(rss)/(1<<20))
	return nil
}

// serve starts recur serve on a free loopback port, measures the time to
// its first health answer, waits idle, reads its RSS and stops it.
func serve(bin string, env []string, idle time.Duration) (time.Duration, int64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(env, "RECUR_SERVER_ADDR="+addr)
	cmd.Stderr = nil
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	client := &http.Client{Timeout: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("recur serve did not answer at %s within 30 s", addr)
		}
		if res, err := client.Get("http://" + addr + "/api/health-check"); err == nil {
			res.Body.Close()
			break
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	if idle == 0 {
		return took, 0, nil
	}
	time.Sleep(idle)
	return took, proc.Memory(cmd.Process.Pid, "VmRSS"), nil
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2].Round(100 * time.Microsecond)
}
