package cli

import (
	"cmp"
	"context"
	"fmt"
	"text/tabwriter"
	"time"
)

func (m *Main) parseMigrate(args []string) error {
	actions := map[string]func(context.Context) error{"up": m.migrateUp, "down": m.migrateDown, "status": m.migrateStatus}
	var bad error
	err := m.parse("migrate up|down|status", "Apply every pending migration (up), roll back the newest (down), or list them (status).", args, 1, 1, nil,
		func(pos []string) {
			if m.command = actions[pos[0]]; m.command == nil {
				bad = fmt.Errorf("recur migrate: unknown action %q; use up, down or status; run recur help migrate", pos[0])
			}
		})
	return cmp.Or(err, bad)
}

func (m *Main) migrateUp(ctx context.Context) error {
	if err := m.openStore(ctx, false); err != nil {
		return err
	}
	applied, err := m.store.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(m.Stdout, "The database is up to date.")
	}
	for _, v := range applied {
		fmt.Fprintf(m.Stdout, "Applied migration %05d.\n", v)
	}
	return nil
}

func (m *Main) migrateDown(ctx context.Context) error {
	if err := m.openStore(ctx, false); err != nil {
		return err
	}
	v, err := m.store.MigrateDown(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Rolled back migration %05d. Back up first next time: recur backup FILE.\n", v)
	return nil
}

func (m *Main) migrateStatus(ctx context.Context) error {
	if err := m.openStore(ctx, false); err != nil {
		return err
	}
	list, err := m.store.MigrationStatuses(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tNAME\tAPPLIED")
	for _, st := range list {
		applied := "pending"
		if st.AppliedAt != nil {
			applied = st.AppliedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%05d\t%s\t%s\n", st.Version, st.Name, applied)
	}
	return tw.Flush()
}
