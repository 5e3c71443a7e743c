package main

import (
	"context"
	"fmt"
	"time"

	"github.com/recur-journal/recur/pipeline"
)

// doctor checks each part a working install needs and says what to do
// about anything that is wrong. It fails when something is.
func (m *Main) doctor(ctx context.Context) error {
	problems := 0
	report := func(ok bool, what, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			problems++
		}
		fmt.Fprintf(m.Stdout, "%s %s: %s\n", mark, what, detail)
	}
	if err := m.openStore(ctx, false); err != nil {
		report(false, "configuration and database", err.Error())
		return problemsFound(problems)
	}
	report(true, "configuration", configSource(m.ConfigPath))
	if problem := m.Config.baseURLProblem(); problem != "" {
		report(false, "base_url", problem)
	} else {
		report(true, "base_url", "mailed links start with "+m.Config.BaseURL())
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.store.Ping(pctx); err != nil {
		report(false, "database", err.Error())
	} else {
		report(true, "database", m.Config.DBPath())
	}

	ollama, err := pipeline.NewOllama(pipeline.OllamaOptions{URL: m.Config.Ollama.URL, Model: m.Config.Ollama.Model,
		EmbedModel: m.Config.Ollama.EmbedModel, Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	st := ollama.Check(pctx)
	if !st.Reachable {
		report(false, "ollama", st.Problem)
	} else {
		report(true, "ollama", fmt.Sprintf("version %s at %s", st.Version, st.URL))
		report(st.ModelPresent, "model "+st.Model, presence(st.ModelPresent, st.Model))
		if st.EmbedModel != "" {
			report(st.EmbedModelPresent, "embedding model "+st.EmbedModel, presence(st.EmbedModelPresent, st.EmbedModel))
		}
	}
	if problems > 0 {
		return problemsFound(problems)
	}
	fmt.Fprintln(m.Stdout, "Everything Recur needs is in place.")
	return nil
}

func presence(ok bool, model string) string {
	if ok {
		return "pulled"
	}
	return "not pulled; run: ollama pull " + model
}

func configSource(path string) string {
	if path == "" {
		return "recur.toml if present, defaults otherwise, RECUR_* variables over both"
	}
	return path + ", RECUR_* variables over it"
}

func problemsFound(n int) error {
	if n == 1 {
		return fmt.Errorf("1 problem found")
	}
	return fmt.Errorf("%d problems found", n)
}
