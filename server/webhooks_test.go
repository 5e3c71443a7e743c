package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/internal/wait"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/notify/notifytest"
	"github.com/recur-journal/recur/pipeline"
	"github.com/recur-journal/recur/pipeline/detect"
	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

func TestWebhooks(t *testing.T) {
	h := newHarness(t)
	// Without allow_private_targets, the harness's notifier refuses loopback.
	refused := h.do("POST", "/api/webhooks", h.tokenA, map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"capture.processed"}})
	if refused.Status != 422 || !strings.Contains(string(refused.Body), `"url":["The url leads to a loopback`) ||
		!strings.Contains(string(refused.Body), "allow_private_targets") {
		t.Fatalf("a loopback target: %d %s", refused.Status, refused.Body)
	}
	created := h.do("POST", "/api/webhooks", h.tokenA, map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"pattern.detected"}})
	if created.Status != 201 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	hook := created.JSON(t)["data"].(map[string]any)
	id := hook["id"].(string)
	if secret, _ := hook["secret"].(string); !strings.HasPrefix(secret, "whsec_") || len(secret) < 40 {
		t.Fatalf("generated secret %q", secret)
	}
	own := h.do("POST", "/api/webhooks", h.tokenA, map[string]any{"url": "http://[2606:4700::1111]/x", "events": []string{"capture.failed"},
		"secret": "a secret of my own choosing"})
	if own.Status != 201 || own.JSON(t)["data"].(map[string]any)["secret"] != "a secret of my own choosing" {
		t.Fatalf("create with a secret: %d %s", own.Status, own.Body)
	}
	readOnly := storetest.MustCreateToken(t, h.store, h.alice.ID, "settings:read")
	h.run([]scenario{
		{name: "List", method: "GET", path: "/api/webhooks", token: h.tokenA, status: 200,
			contains: []string{`"url":"https://93.184.215.14/hook"`, `"events":["pattern.detected"]`, `"total":2`}, notContains: []string{"secret"}},
		{name: "ListOthersEmpty", method: "GET", path: "/api/webhooks", token: h.tokenB, status: 200, contains: []string{`"total":0`}},
		{name: "Deliveries", method: "GET", path: "/api/webhooks/" + id + "/deliveries", token: h.tokenA, status: 200, contains: []string{`"total":0`}},
		{name: "ErrDeliveriesOfAnother", method: "GET", path: "/api/webhooks/" + id + "/deliveries", token: h.tokenB, status: 404},
		{name: "ErrDeleteAnother", method: "DELETE", path: "/api/webhooks/" + id, token: h.tokenB, status: 404},
		{name: "ErrNoToken", method: "GET", path: "/api/webhooks", status: 401},
		{name: "ErrScope", method: "POST", path: "/api/webhooks", token: readOnly, body: map[string]any{"url": "https://93.184.215.14/", "events": []string{"review.ready"}},
			status: 403, contains: []string{"settings:write"}},
		{name: "ErrUnknownEvent", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "https://93.184.215.14/", "events": []string{"capture.eaten"}},
			status: 422, contains: []string{`"events":["The event type \"capture.eaten\" does not exist`}},
		{name: "ErrNoEvents", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "https://93.184.215.14/", "events": []string{}},
			status: 422, contains: []string{`"events":[`}, invalid: true},
		{name: "ErrScheme", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "ftp://example.com/", "events": []string{"review.ready"}},
			status: 422, contains: []string{`"url":["The url must be an absolute http or https URL`}},
		{name: "ErrPrivate", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "http://192.168.1.10/", "events": []string{"review.ready"}},
			status: 422, contains: []string{`"url":["The url leads to a loopback, private or link-local address (192.168.1.10)`}},
		{name: "ErrLinkLocal", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "http://169.254.169.254/latest/meta-data", "events": []string{"review.ready"}},
			status: 422, contains: []string{`(169.254.169.254)`}},
		{name: "ErrShortSecret", method: "POST", path: "/api/webhooks", token: h.tokenA, body: map[string]any{"url": "https://93.184.215.14/", "events": []string{"review.ready"}, "secret": "short"},
			status: 422, contains: []string{`"secret":["The secret must be 16 to 256 characters long."]`}},
		{name: "Delete", method: "DELETE", path: "/api/webhooks/" + id, token: h.tokenA, status: 204},
		{name: "ErrDeleteGone", method: "DELETE", path: "/api/webhooks/" + id, token: h.tokenA, status: 404},
	})
	t.Run("ErrTooMany", func(t *testing.T) {
		for i := range notify.MaxChannels {
			res := h.do("POST", "/api/webhooks", h.tokenB, map[string]any{"url": fmt.Sprintf("https://93.184.215.14/%d", i), "events": []string{"review.ready"}})
			if res.Status != 201 {
				t.Fatalf("webhook %d: %d %s", i+1, res.Status, res.Body)
			}
		}
		res := h.do("POST", "/api/webhooks", h.tokenB, map[string]any{"url": "https://93.184.215.14/over", "events": []string{"review.ready"}})
		if res.Status != 422 || !strings.Contains(string(res.Body), "at most 10 notification channels") {
			t.Fatalf("webhook %d: %d %s", notify.MaxChannels+1, res.Status, res.Body)
		}
	})
}

// Done as a new user would: a webhook on a local receiver (the owner
// allowed private targets) gets a signed capture.processed for each entry
// and a signed pattern.detected when the third day makes a pattern, and
// its delivery log says they were delivered.
func TestWebhookDeliveriesFromThePipeline(t *testing.T) {
	model := scriptedModel(t)
	var pipe *pipeline.Pipeline
	var n *notify.Notifier
	h := newHarness(t, func(o *server.Options) {
		n = notify.New(notify.Options{Store: o.Store, Logger: o.Logger, AllowPrivateTargets: true})
		events := journal.NewEvents()
		pipe = pipeline.New(pipeline.Options{Store: o.Store, Model: model, ModelName: "qwen2.5:7b", Workers: 2, Logger: o.Logger,
			Detector: n.Detect(detect.NewDetector(o.Store, nil)), Watcher: n.Watch(events), Poll: 20 * time.Millisecond})
		o.Analyser, o.Events, o.Notifier = pipe, events, n
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { n.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	rcv := notifytest.NewReceiver(t)
	res := h.do("POST", "/api/webhooks", h.tokenA, map[string]any{"url": rcv.URL + "/hook", "events": []string{"capture.processed", "pattern.detected"}})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	hook := res.JSON(t)["data"].(map[string]any)
	rcv.SetSecret(hook["secret"].(string))

	const text = "My boss criticised my report in front of the team. I felt anxious all afternoon and skipped lunch."
	ids := map[string]bool{}
	for day := 3; day >= 1; day-- {
		when := h.store.Now().AddDate(0, 0, -day).Format(time.RFC3339)
		res := h.do("POST", "/api/captures", h.tokenA, map[string]string{"text": text, "occurred_at": when})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		ids[res.JSON(t)["data"].(map[string]any)["id"].(string)] = true
	}
	if err := pipe.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pipe.Stop)

	wait.Eventually(t, 30*time.Second, "three capture.processed and a pattern.detected", func() bool {
		var processed, detected int
		for _, d := range rcv.Got() {
			switch d.Type {
			case "capture.processed":
				processed++
			case "pattern.detected":
				detected++
			}
		}
		return processed == 3 && detected >= 1
	}, rcv.Types)
	for _, d := range rcv.Got() {
		if !d.Signed {
			t.Errorf("%s %s: signature %q does not verify with the webhook's secret", d.Type, d.ID, d.Signature)
		}
		if !timestampRE.MatchString(d.CreatedAt) {
			t.Errorf("%s: created_at %q", d.Type, d.CreatedAt)
		}
		switch d.Type {
		case "capture.processed":
			if !ids[d.Data["id"].(string)] || d.Data["status"] != "processed" {
				t.Errorf("capture.processed data %v", d.Data)
			}
		case "pattern.detected":
			if d.Data["state"] != "open" || d.Data["name"] == "" {
				t.Errorf("pattern.detected data %v", d.Data)
			}
		default:
			t.Errorf("got %s, which the webhook did not ask for", d.Type)
		}
	}
	// A pattern found a moment after the first may still be on its way:
	// the log is read once nothing in it waits to be sent.
	var log response
	wait.Poll(10*time.Second, func() bool {
		log = h.do("GET", "/api/webhooks/"+hook["id"].(string)+"/deliveries", h.tokenA, nil)
		return log.Status != 200 || !strings.Contains(string(log.Body), `"state":"pending"`)
	})
	if log.Status != 200 || strings.Count(string(log.Body), `"state":"delivered"`) != len(rcv.Got()) {
		t.Fatalf("delivery log: %d %s", log.Status, log.Body)
	}
}
