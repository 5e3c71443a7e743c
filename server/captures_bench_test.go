package server_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// BenchmarkCreateCaptures posts entries to POST /api/captures from 16
// clients at once (and, to compare, from one), each signed in as its own
// user, over loopback HTTP to a server on a SQLite file, and reports the
// captures acknowledged a second. Every answer must be 201.
func BenchmarkCreateCaptures(b *testing.B) {
	for _, clients := range []int{16, 1} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { benchmarkCreateCaptures(b, clients) })
	}
}

func benchmarkCreateCaptures(b *testing.B, clients int) {
	s := storetest.MustOpen(b)
	srv := httptest.NewServer(nil)
	defer srv.Close()
	api := server.New(server.Options{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: srv.URL, Version: "bench"})
	srv.Config.Handler = api.Handler()
	api.Start()
	defer api.Stop()

	tokens := make([]string, clients)
	for i := range tokens {
		u := storetest.MustCreateUser(b, s, fmt.Sprintf("writer%d@example.com", i))
		tokens[i] = storetest.MustCreateToken(b, s, u.ID)
	}
	// One kept-alive connection per client, so the figure is the server's,
	// not the cost of opening connections.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	body := []byte(`{"text":"Jonas asked for the report again at five, so I stayed late and skipped dinner. Felt anxious on the way home and snapped at Mika."}`)

	var next atomic.Int64
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := post(client, srv.URL+"/api/captures", tokens[c], body); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "captures/s")
}

// post sends one entry and fails unless it was created.
func post(client *http.Client, url, token string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST /api/captures = %d: %s", res.StatusCode, answer)
	}
	return nil
}
