package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestCreateCapturesConcurrently posts entries from many clients at once,
// as BenchmarkCreateCaptures does, so that they are committed together: each
// one is created exactly once and can be read as soon as it was answered,
// and a blank one among them is refused alone.
func TestCreateCapturesConcurrently(t *testing.T) {
	const clients, each = 16, 8
	h := newHarness(t)
	type result struct {
		status int
		body   []byte
		read   int // status of GET /captures/{id} sent right after a 201
	}
	results := make([][]result, clients)
	reqs := make([][]*http.Request, clients)
	for c := range clients {
		for i := range each {
			text := fmt.Sprintf("client %d entry %d", c, i)
			if c == clients/2 && i == each/2 {
				text = " \n " // blank: refused by the store's own validation
			}
			reqs[c] = append(reqs[c], h.request(http.MethodPost, "/api/captures", map[string]string{"text": text}))
		}
	}
	client := &http.Client{Transport: h.check}
	// send is safe to call from any goroutine: it reports with t.Errorf.
	send := func(req *http.Request) (int, []byte) {
		req.Header.Set("Authorization", "Bearer "+h.tokenA)
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
			return 0, nil
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, req := range reqs[c] {
				status, body := send(req)
				r := result{status: status, body: body}
				if status == http.StatusCreated {
					var created struct{ Data struct{ ID string } }
					if err := json.Unmarshal(body, &created); err != nil || created.Data.ID == "" {
						t.Errorf("201 without an id: %s", body)
					} else {
						r.read, _ = send(h.request(http.MethodGet, "/api/captures/"+created.Data.ID, nil))
					}
				}
				results[c] = append(results[c], r)
			}
		}()
	}
	wg.Wait()

	ids := map[string]bool{}
	for c := range clients {
		for i, r := range results[c] {
			if c == clients/2 && i == each/2 {
				if got, want := r.status, http.StatusUnprocessableEntity; got != want {
					t.Errorf("blank entry: status %d, want %d: %s", got, want, r.body)
				}
				var refused struct{ Errors map[string][]string }
				if err := json.Unmarshal(r.body, &refused); err != nil || len(refused.Errors["text"]) != 1 {
					t.Errorf("blank entry: want one error under text, got %s", r.body)
				}
				continue
			}
			if got, want := r.status, http.StatusCreated; got != want {
				t.Errorf("client %d entry %d: status %d, want %d: %s", c, i, got, want, r.body)
				continue
			}
			if got, want := r.read, http.StatusOK; got != want {
				t.Errorf("client %d entry %d: read right after 201 answered %d, want %d", c, i, got, want)
			}
			var created struct{ Data struct{ ID, Original string } }
			_ = json.Unmarshal(r.body, &created)
			if want := fmt.Sprintf("client %d entry %d", c, i); created.Data.Original != want {
				t.Errorf("client %d entry %d: created %q, want %q", c, i, created.Data.Original, want)
			}
			if ids[created.Data.ID] {
				t.Errorf("id %s answered twice", created.Data.ID)
			}
			ids[created.Data.ID] = true
		}
	}

	// Exactly the acknowledged entries are stored: none lost, none twice.
	var list struct {
		Data []struct{ ID string }
		Meta struct{ Total int }
	}
	res := h.do(http.MethodGet, "/api/captures?limit=1000", h.tokenA, nil)
	if err := json.Unmarshal(res.Body, &list); err != nil {
		t.Fatal(err)
	}
	if got, want := list.Meta.Total, clients*each-1; got != want {
		t.Errorf("stored %d captures, want %d", got, want)
	}
	for _, c := range list.Data {
		if !ids[c.ID] {
			t.Errorf("capture %s is stored but was not acknowledged", c.ID)
		}
		delete(ids, c.ID)
	}
	if len(ids) > 0 {
		t.Errorf("%d acknowledged captures are not listed", len(ids))
	}
}
