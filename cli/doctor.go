package cli

import (
	"context"
	"fmt"
	"time"
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
	if problem := m.Config.BaseURLProblem(); problem != "" {
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

	servers, err := m.endpoints(10 * time.Second)
	if err != nil {
		return err
	}
	server, ollama := "model server", m.Config.Model.Provider == "ollama"
	if ollama {
		server = "ollama"
	}
	for _, model := range servers {
		st := model.Check(pctx)
		at := "" // with several servers, each line says which
		if len(servers) > 1 {
			at = " at " + st.URL
		}
		if !st.Reachable {
			report(false, server+at, st.Problem)
			continue
		}
		if ollama {
			report(true, server+at, fmt.Sprintf("version %s at %s", st.Version, st.URL))
		} else {
			report(true, server+at, "an OpenAI-compatible server at "+st.URL)
		}
		report(st.ModelPresent, "model "+st.Model+at, presence(ollama, st.ModelPresent, st.Model, "name"))
		if st.EmbedModel != "" {
			report(st.EmbedModelPresent, "embedding model "+st.EmbedModel+at, presence(ollama, st.EmbedModelPresent, st.EmbedModel, "embed_name"))
		}
	}
	if problems > 0 {
		return problemsFound(problems)
	}
	fmt.Fprintln(m.Stdout, "Everything Recur needs is in place.")
	return nil
}

// presence says whether a model is on the server, and what to do when it
// is not; key is its key in [model].
func presence(ollama, ok bool, model, key string) string {
	switch {
	case ok && ollama:
		return "pulled"
	case ok:
		return "served"
	case ollama:
		return "not pulled; run: ollama pull " + model
	}
	return "not among the server's models (GET /models); load it there or set [model] " + key
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
