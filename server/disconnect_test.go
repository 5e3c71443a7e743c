package server_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recur-journal/recur/server"
	"github.com/recur-journal/recur/store/storetest"
)

// A client that went away before its answer was ready is no server error:
// the request is logged once, at info, with nginx's 499.
func TestClientDisconnectLogged499(t *testing.T) {
	s := storetest.MustOpen(t)
	user := storetest.MustCreateUser(t, s, "alice@example.com")
	token := storetest.MustCreateToken(t, s, user.ID)
	for _, path := range []string{"/api/captures", "/api/users/me", "/api/health-check", "/"} {
		t.Run(path, func(t *testing.T) {
			logs := &syncBuffer{}
			handler := server.New(server.Options{Store: s, BaseURL: "http://127.0.0.1:8080",
				Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}).Handler()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the client hung up
			req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
			req.Header.Set("Authorization", "Bearer "+token)
			handler.ServeHTTP(httptest.NewRecorder(), req)

			var access string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
					t.Errorf("logged as a problem: %s", line)
				}
				if strings.Contains(line, "msg=request ") {
					access = line
				}
			}
			if !strings.Contains(access, "level=INFO") || !strings.Contains(access, "status=499") {
				t.Errorf("access log line = %q, want level INFO and status 499", access)
			}
		})
	}
}
