package server_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// searchLoadWords make the entries of the loaded journal: everyday words
// and the one-letter words ("a", "I", and the "s" and "t" of "it's" and
// "don't") that are the costliest to search for, since nearly every entry
// holds them.
var searchLoadWords = strings.Fields(`a i s t d e x y it's don't the boss said my report was late so we went
to lunch and it was fine then mika called about the train walk reading coffee tired anxious happy work home
garden rain sister meeting deadline slept badly ran park phone call angry calm dinner cooked friends laughed`)

// BenchmarkSearchLoad serves a 25,000-entry journal and has eight other
// accounts search it at once, without pause, for the costliest words there
// are (the index is shared, so a search costs the same from any account):
// the most frequent one-letter words, eight of them, and the same letter
// 99 times. Meanwhile a third user writes an entry and then asks the open
// health check, b.N times. It reports the slowest and the median write,
// the slowest health check, how many health checks did not answer 200
// (health-non200, the figure that must stay 0) and how the searches were
// answered.
func BenchmarkSearchLoad(b *testing.B) {
	ctx := context.Background()
	s := storetest.MustOpen(b)
	heavy := storetest.MustCreateUser(b, s, "heavy@example.com")
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC()
	entries := make([]store.ImportEntry, 25000)
	for i := range entries {
		words := make([]string, 60)
		for j := range words {
			words[j] = searchLoadWords[r.IntN(len(searchLoadWords))]
		}
		entries[i] = store.ImportEntry{OccurredAt: now.Add(-time.Duration(i) * time.Hour), Text: strings.Join(words, " "), Source: strconv.Itoa(i)}
	}
	if _, err := s.ImportCaptures(ctx, heavy.ID, "bench", entries); err != nil {
		b.Fatal(err)
	}
	srv, _ := startServer(b, s)
	writer := storetest.MustCreateToken(b, s, storetest.MustCreateUser(b, s, "writer@example.com").ID)
	queries := []string{"a i s t d e x y", strings.TrimSpace(strings.Repeat("a ", 99))}

	// One write and one health check first, so that neither the checkpoint
	// of the import nor the opening of connections counts as load.
	if status, err := send(http.MethodPost, srv.URL+"/api/captures", writer, `{"text":"Before the searches."}`); status != http.StatusCreated {
		b.Fatalf("write answered %d %v", status, err)
	}
	if status, err := send(http.MethodGet, srv.URL+"/api/health-check", "", ""); status != http.StatusOK {
		b.Fatalf("health check answered %d %v", status, err)
	}

	stop := make(chan struct{})
	var mu sync.Mutex
	answers := map[int]int{}
	var wg sync.WaitGroup
	for n := range 8 {
		token := storetest.MustCreateToken(b, s, storetest.MustCreateUser(b, s, fmt.Sprintf("searcher%d@example.com", n)).ID)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				status, err := send(http.MethodGet, srv.URL+"/api/captures?q="+url.QueryEscape(queries[i%len(queries)]), token, "")
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				answers[status]++
				mu.Unlock()
			}
		}()
	}

	var writes, checks []time.Duration
	non200 := 0
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if status, err := send(http.MethodPost, srv.URL+"/api/captures", writer, fmt.Sprintf(`{"text":"Entry %d, written while others search."}`, i)); status != http.StatusCreated {
			b.Fatalf("write answered %d %v", status, err)
		}
		writes = append(writes, time.Since(start))
		start = time.Now()
		if status, _ := send(http.MethodGet, srv.URL+"/api/health-check", "", ""); status != http.StatusOK {
			non200++
		}
		checks = append(checks, time.Since(start))
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	slices.Sort(writes)
	if testing.Verbose() && len(writes) >= 3 {
		b.Logf("slowest writes %v, slowest checks %v", writes[len(writes)-3:], slices.Sorted(slices.Values(checks))[len(checks)-3:])
	}
	b.ReportMetric(ms(writes[len(writes)-1]), "write-max-ms")
	b.ReportMetric(ms(writes[len(writes)/2]), "write-p50-ms")
	b.ReportMetric(ms(slices.Max(checks)), "health-max-ms")
	b.ReportMetric(float64(non200), "health-non200")
	for _, status := range []int{200, 422, 429} {
		b.ReportMetric(float64(answers[status]), fmt.Sprintf("searches-%d", status))
	}
	for status := range answers {
		if status != 200 && status != 422 && status != 429 {
			b.Errorf("searches answered with other statuses: %v", answers)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// send makes one request with a token (none when empty) and returns the
// status, having read the whole answer.
func send(method, target, token, body string) (int, error) {
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, err
}
