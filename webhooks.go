package main

import (
	"context"

	"github.com/recur-journal/recur/notify"
)

// hookParts are the webhook notifier and its delivery worker, while serving.
type hookParts struct {
	notifier *notify.Notifier
	stop     context.CancelFunc
	done     chan struct{}
}

// newNotifier makes the notifier that records events for webhooks, before
// the pipeline that tells it of them.
func (m *Main) newNotifier() {
	m.hooks.notifier = notify.New(notify.Options{Store: m.store, Logger: m.Logger.With("part", "notify"),
		AllowPrivateTargets: m.Config.Notify.AllowPrivateTargets, Now: m.Now})
}

// startDeliveries starts the worker that delivers recorded events.
func (m *Main) startDeliveries() {
	ctx, stop := context.WithCancel(context.Background())
	m.hooks.stop, m.hooks.done = stop, make(chan struct{})
	go func() {
		defer close(m.hooks.done)
		m.hooks.notifier.Run(ctx)
	}()
}

// stopDeliveries stops the worker, letting an attempt under way end; what
// is still pending is delivered after the next start.
func (m *Main) stopDeliveries() {
	if m.hooks.stop != nil {
		m.hooks.stop()
		<-m.hooks.done
		m.hooks = hookParts{}
	}
}
