// Command loginflood builds recur, starts `recur serve` on a loopback port
// with a fresh data folder, fires parallel sign-ins with distinct addresses
// (each from its own loopback address, so that only the bound on password
// checks stands in the way, not the per-IP limit), and prints the server's
// peak resident memory. Then it checks that a correct sign-in still works.
//
//	go run ./scripts/loginflood [-n 128]
//
// Linux only: it reads /proc. It is not part of go test.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/recur-journal/recur/scripts/internal/proc"
)

func main() {
	n := flag.Int("n", 128, "parallel sign-ins")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "loginflood:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	dir, bin, err := proc.Build("recur-loginflood-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(), "RECUR_STORAGE_DATA_DIR="+filepath.Join(dir, "data"), "RECUR_SERVER_ADDR="+addr,
		"RECUR_MODEL_URL=http://127.0.0.1:1")

	migrate := exec.Command(bin, "migrate", "up") // only serve and migrate make a database
	migrate.Env, migrate.Stderr = env, os.Stderr
	if err := migrate.Run(); err != nil {
		return fmt.Errorf("migrate up: %w", err)
	}
	add := exec.Command(bin, "user", "add", "owner@example.com", "--password-stdin")
	add.Env, add.Stdin, add.Stderr = env, strings.NewReader("correct horse battery\n"), os.Stderr
	if err := add.Run(); err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	serve := exec.Command(bin, "serve")
	serve.Env = env
	if err := serve.Start(); err != nil {
		return err
	}
	defer func() { serve.Process.Kill(); serve.Wait() }()
	base := "http://" + addr
	if err := waitUp(base); err != nil {
		return err
	}
	idle := proc.Memory(serve.Process.Pid, "VmRSS")
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			ip := fmt.Sprintf("127.0.%d.%d", 2+i/250, 1+i%250)
			code, err := login(base, ip, fmt.Sprintf("nobody%d@example.com", i), "not the password")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				statuses[-1]++
				return
			}
			statuses[code]++
		})
	}
	wg.Wait()
	took := time.Since(start)
	peak := proc.Memory(serve.Process.Pid, "VmHWM") // the kernel's high-water mark of RSS

	code, err := login(base, "127.0.0.1", "owner@example.com", "correct horse battery")
	if err != nil {
		return err
	}
	fmt.Printf("%d parallel sign-ins in %v: answers %v\n", n, took.Round(time.Millisecond), statuses)
	fmt.Printf("RSS idle %d MB, peak %d MB (VmHWM)\n", idle>>20, peak>>20)
	fmt.Printf("the correct sign-in afterwards: %d\n", code)
	if code != http.StatusOK {
		return fmt.Errorf("the correct sign-in failed: %d", code)
	}
	return nil
}

// login posts a sign-in from the local address ip.
func login(base, ip, email, password string) (int, error) {
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	res, err := client.Post(base+"/api/login", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}

func waitUp(base string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if res, err := http.Get(base + "/api/health-check"); err == nil {
			res.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("recur serve did not answer at %s within 30 s", base)
}
