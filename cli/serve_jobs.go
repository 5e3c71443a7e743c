package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/recur-journal/recur/backup"
	"github.com/recur-journal/recur/pipeline"
)

// job is background work cron runs under a stable name.
type job struct {
	name     string
	schedule string
	run      func(ctx context.Context) error
}

// jobs lists every scheduled job, in one place.
func (m *Main) jobs() []job {
	list := []job{
		{name: "nightly", schedule: pipeline.NightlySchedule, run: func(ctx context.Context) error {
			n, err := m.pipeline.Nightly(ctx)
			if n > 0 {
				m.Logger.Info("nightly detection", "users", n)
			}
			return err
		}},
		{name: "expire-sessions", schedule: "@hourly", run: func(ctx context.Context) error {
			return m.store.DeleteExpired(ctx)
		}},
	}
	if b := m.ops.backups; b != nil {
		list = append(list, job{name: "backup", schedule: b.Schedule(), run: b.Run})
	}
	return list
}

// startJobs catches up on nightly runs missed while the server was down,
// then schedules the jobs in UTC. Each run recovers from a panic and is
// skipped while the previous one is still running.
func (m *Main) startJobs(ctx context.Context) error {
	ctx, m.jobsCancel = context.WithCancel(context.WithoutCancel(ctx))
	m.ops.backups = m.newScheduledBackups()
	list := m.jobs()
	for _, j := range list {
		if j.name == "nightly" {
			if err := j.run(ctx); err != nil {
				return err
			}
		}
	}
	log := cronLogger{m.Logger.With("part", "cron")}
	m.cron = cron.New(cron.WithLocation(time.UTC), cron.WithLogger(log),
		cron.WithChain(cron.Recover(log), cron.SkipIfStillRunning(log)))
	for _, j := range list {
		if _, err := m.cron.AddFunc(j.schedule, func() {
			if err := j.run(ctx); err != nil {
				m.Logger.Error("job failed", "job", j.name, "error", err)
			}
		}); err != nil {
			return err
		}
	}
	m.cron.Start()
	return nil
}

// stopJobs stops the scheduler and waits for a job in flight.
func (m *Main) stopJobs() {
	if m.cron == nil {
		return
	}
	m.jobsCancel()
	<-m.cron.Stop().Done()
	m.cron = nil
}

// cronLogger writes cron's own messages to slog.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug(msg, kv...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error(msg, append(kv, "error", err)...)
}

// newScheduledBackups returns the backup job, or nil when [backup] dir is
// empty.
func (m *Main) newScheduledBackups() *backup.Scheduled {
	cfg := m.Config.Backup
	if cfg.Dir == "" {
		return nil
	}
	o := backup.Options{Dir: cfg.Dir, Interval: cfg.Interval.Duration, Keep: cfg.Keep, DataDir: m.Config.Storage.DataDir,
		Store: m.store, Logger: m.Logger.With("part", "backup")}
	if cfg.AgeRecipient != "" {
		o.Recipient, _ = backup.ParseRecipient(cfg.AgeRecipient) // checked by Validate
	}
	if m.ops.metrics != nil {
		o.Observe = m.ops.metrics.ObserveBackup
	}
	return backup.NewScheduled(o)
}
