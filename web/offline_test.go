package web_test

import (
	"regexp"
	"strings"
	"testing"
)

// Every script and the stylesheet the offline page loads are in the
// service worker's cache, so the page shown without a connection loads
// whole, and a page whose request for a script is cut short falls back to
// the cached copy instead of failing.
func TestServiceWorkerCachesWhatTheOfflinePageLoads(t *testing.T) {
	h := newHarness(t, nil)
	b := h.anonymous()
	worker := b.get("/sw.js")
	m := regexp.MustCompile(`(?m)^const shell = \[([^\]]*)\];`).FindStringSubmatch(worker.body)
	if worker.status != 200 || m == nil {
		t.Fatalf("GET /sw.js = %d without a shell list\n%s", worker.status, worker.body)
	}
	page := b.get("/offline")
	loads := regexp.MustCompile(`<script[^>]* src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"`).FindAllStringSubmatch(page.body, -1)
	if page.status != 200 || len(loads) == 0 {
		t.Fatalf("GET /offline = %d loading nothing\n%s", page.status, page.body)
	}
	for _, l := range loads {
		src := l[1] + l[2]
		if !strings.Contains(m[1], `"`+src+`"`) {
			t.Errorf("the offline page loads %s, which the service worker does not cache: %s", src, m[1])
		}
	}
}
