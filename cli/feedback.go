package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/recur-journal/recur/store"
)

func (m *Main) parseFeedbackList(args []string) error {
	var asJSON bool
	return m.parse("feedback list", "List every feedback note users sent, newest first, with the sender's address.", args, 0, 0,
		func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print a JSON array instead of text") },
		func([]string) { m.command = func(ctx context.Context) error { return m.feedbackList(ctx, asJSON) } })
}

func (m *Main) feedbackList(ctx context.Context, asJSON bool) error {
	if err := m.openStore(ctx, true); err != nil {
		return err
	}
	list, err := m.store.ListAllFeedback(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		type feedback struct {
			ID        string `json:"id"`
			Email     string `json:"email"`
			Feedback  string `json:"feedback"`
			CreatedAt string `json:"created_at"`
		}
		out := make([]feedback, 0, len(list))
		for _, f := range list {
			out = append(out, feedback{f.ID, f.Email, f.Body, store.FormatTime(f.CreatedAt)})
		}
		return writeJSON(m.Stdout, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(m.Stderr, "No feedback yet.")
		return nil
	}
	for i, f := range list {
		if i > 0 {
			fmt.Fprintln(m.Stdout)
		}
		fmt.Fprintf(m.Stdout, "%s  %s\n", shortTime(f.CreatedAt), cell(f.Email))
		for _, line := range strings.Split(strings.TrimSpace(f.Body), "\n") {
			fmt.Fprintf(m.Stdout, "    %s\n", cell(line))
		}
	}
	return nil
}
