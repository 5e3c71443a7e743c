package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
)

// DefaultHeartbeat is how often an event stream sends a comment when
// nothing happens, so that proxies and browsers keep it open and a client
// that went away is noticed.
const DefaultHeartbeat = 25 * time.Second

// streamWriteWait is how long one write to an event stream may take before
// the connection is given up; each write moves the server's write deadline
// this far ahead.
const streamWriteWait = time.Minute

const eventsDescription = ` Server-Sent Events (text/event-stream) of the caller's journal, from the moment of the request: nothing is replayed, so read the list again after reconnecting. Two kinds of message:

- event: capture, data: {"id", "status", "updated_at"}: a capture's status after every change (queued when written or changed, processing, processed, failed, and queued again while Ollama cannot be reached).
- event: pattern, data: {"id", "name", "kind", "state"}: a pattern that detection found, new or open again; kind is trigger, good_behaviour or bad_behaviour, state open.

A comment line (": heartbeat") comes every 25 seconds when nothing else does. The stream ends when the client goes away or the server shuts down. A user may hold 8 streams at once; beyond that the answer is 429. A reader that falls far behind loses the oldest messages.`

func (s *Server) registerEvents() {
	o := op(http.MethodGet, "/captures/events", "capture-events", "Captures", "Follow capture statuses and new patterns live",
		account.ScopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests)
	o.Description += eventsDescription
	o.Responses = map[string]*huma.Response{
		strconv.Itoa(http.StatusOK): {
			Description: "A stream of events, open until the client or the server ends it.",
			Content: map[string]*huma.MediaType{"text/event-stream": {
				Schema: &huma.Schema{Type: huma.TypeString, Description: "Messages of the form `event: capture` or `event: pattern`, then `data: {...}` and a blank line; comment lines begin with a colon."},
			}},
		},
	}
	huma.Register(s.api, o, s.captureEvents)
}

func (s *Server) captureEvents(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
	events, cancel, err := s.opts.Events.TrySubscribe(current(ctx).User.ID)
	if errors.Is(err, journal.ErrTooManySubscribers) {
		return nil, &apiError{status: http.StatusTooManyRequests, headers: http.Header{"Retry-After": {"60"}},
			Message: fmt.Sprintf(i18n.Key("Too many open event streams: at most %d at once. Close a page or an app that follows them."), journal.MaxSubscribers)}
	} else if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer cancel()
		r, w := humago.Unwrap(hctx)
		s.stream(r, w, events)
	}}, nil
}

// stream writes events to w until the client goes away, the server shuts
// down or the subscription ends.
func (s *Server) stream(r *http.Request, w http.ResponseWriter, events <-chan journal.Event) {
	rc := http.NewResponseController(w)
	// The server's read timeout would end the request while it streams: the
	// request was read in full, and a dead client shows on the next write.
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each message on at once
	w.WriteHeader(http.StatusOK)
	send := func(msg []byte) bool {
		// Without this, the server's write timeout would cut the stream.
		if err := rc.SetWriteDeadline(time.Now().Add(streamWriteWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(msg); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send([]byte(": connected\n\n")) {
		return
	}
	heartbeat := time.NewTicker(s.opts.Heartbeat)
	defer heartbeat.Stop()
	for {
		var msg []byte
		select {
		case <-r.Context().Done():
			return
		case <-s.streams.Done():
			return
		case <-heartbeat.C:
			msg = []byte(": heartbeat\n\n")
		case ev, ok := <-events:
			if !ok {
				return
			}
			data, err := json.Marshal(ev.Data)
			if err != nil {
				logger(r.Context()).Error("encode event", "type", ev.Type, "error", err)
				continue
			}
			msg = fmt.Appendf(nil, "event: %s\ndata: %s\n\n", ev.Type, data)
		}
		if !send(msg) {
			return
		}
	}
}

// EndStreams ends every open event stream, as the server shuts down: an
// open stream would otherwise hold the shutdown until its time ran out.
// Register it with http.Server.RegisterOnShutdown.
func (s *Server) EndStreams() { s.endStreams() }
