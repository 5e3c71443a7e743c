package cli

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// logLevels maps [log] level to slog's levels.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// logSwitch is the log's level and format. Set changes both for every
// logger made from Logger, those made before (each part's) included, so a
// reload applies [log] without a restart.
type logSwitch struct {
	w     io.Writer // shared by the text and JSON handlers, one record a write
	level slog.LevelVar
	base  atomic.Pointer[slog.Handler]
}

// newLogSwitch returns a switch writing to w as c says.
func newLogSwitch(w io.Writer, c LogConfig) *logSwitch {
	s := &logSwitch{w: &lockedWriter{w: w}}
	s.Set(c)
	return s
}

// Set changes the level and format.
func (s *logSwitch) Set(c LogConfig) {
	s.level.Set(logLevels[c.Level])
	opts := &slog.HandlerOptions{Level: &s.level}
	var h slog.Handler = slog.NewTextHandler(s.w, opts)
	if c.Format == "json" {
		h = slog.NewJSONHandler(s.w, opts)
	}
	s.base.Store(&h)
}

// Logger returns a logger that follows the switch.
func (s *logSwitch) Logger() *slog.Logger { return slog.New(&switchHandler{s: s}) }

// lockedWriter serialises writes: while a reload changes the format, the
// old handler and the new one may write at once.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// switchHandler hands each record to the switch's current handler, with
// the attributes and groups added to this logger.
type switchHandler struct {
	s    *logSwitch
	with func(slog.Handler) slog.Handler // nil: nothing added
	made atomic.Pointer[madeHandler]
}

// madeHandler is a handler made from a base one, kept until the base changes.
type madeHandler struct {
	base *slog.Handler
	h    slog.Handler
}

var _ slog.Handler = (*switchHandler)(nil)

func (h *switchHandler) current() slog.Handler {
	base := h.s.base.Load()
	if m := h.made.Load(); m != nil && m.base == base {
		return m.h
	}
	out := *base
	if h.with != nil {
		out = h.with(out)
	}
	h.made.Store(&madeHandler{base: base, h: out})
	return out
}

func (h *switchHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.s.level.Level() }

func (h *switchHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.current().Handle(ctx, r)
}

func (h *switchHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.derive(func(x slog.Handler) slog.Handler { return x.WithAttrs(attrs) })
}

func (h *switchHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.derive(func(x slog.Handler) slog.Handler { return x.WithGroup(name) })
}

// derive is a handler that adds add after what h adds.
func (h *switchHandler) derive(add func(slog.Handler) slog.Handler) *switchHandler {
	prev := h.with
	return &switchHandler{s: h.s, with: func(x slog.Handler) slog.Handler {
		if prev != nil {
			x = prev(x)
		}
		return add(x)
	}}
}
