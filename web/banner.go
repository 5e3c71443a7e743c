package web

import (
	"strings"

	"github.com/recur-journal/recur/health"
	"github.com/recur-journal/recur/internal/i18n"
)

// bannerEndpoint is one model server of a pool, as the banner lists it.
type bannerEndpoint struct {
	URL   string
	Up    bool
	State string // a few plain words
}

// newBanner is what the pages say of the model server o describes: nothing
// while it works, else what is wrong, for Ollama the command that mends it
// and for an OpenAI-compatible server what to do. With a pool, every
// server's state is listed, and a server that does not work shows even
// while the others take its calls.
func newBanner(o health.OllamaHealth, loc *i18n.Locale) *banner {
	var endpoints []bannerEndpoint
	down := 0
	for _, e := range o.Endpoints {
		be := bannerEndpoint{URL: e.URL, Up: e.OK, State: loc.T("works")}
		switch {
		case !e.OK:
			be.State = loc.T("does not work")
			down++
		case e.PausedUntil != nil:
			be.State = loc.T("answers, paused after a failed call")
		}
		endpoints = append(endpoints, be)
	}
	embedMissing := o.Reachable && o.EmbedModel != "" && !o.EmbedPresent
	works := o.Reachable && o.ModelPresent && !o.Failing && !embedMissing
	if works && down == 0 {
		return nil
	}
	ollama := o.Provider != "openai"
	name := loc.T("The model server")
	if ollama {
		name = "Ollama"
	}
	// The sentence is plain; the technical reason goes under Details.
	b := &banner{Heading: loc.T("Entries are kept, but none can be read yet."), Detail: strings.ReplaceAll(o.Error, "`", ""), Endpoints: endpoints}
	switch {
	case works:
		b.Heading = loc.T("Entries are read, by fewer model servers than configured.")
		b.Problem = loc.T("%d of the %d model servers do not work; the others take their calls.", down, len(endpoints))
		b.Command, b.Hint = ollamaOr(ollama, "ollama serve", loc.T("Start it, or remove it from [model] url."))
		b.Detail = ""
		for _, e := range o.Endpoints {
			if !e.OK {
				b.Detail = strings.TrimSpace(b.Detail + " " + strings.ReplaceAll(e.Error, "`", ""))
			}
		}
	case !o.Reachable:
		b.Problem = loc.T("%s does not answer at %s.", name, o.URL)
		b.Command, b.Hint = ollamaOr(ollama, "ollama serve", loc.T("Start it, or set [model] url (the base, /v1 included) and api_key."))
	case !o.ModelPresent:
		b.Problem = loc.T("%s does not have the model %s yet.", name, o.Model)
		b.Command, b.Hint = ollamaOr(ollama, "ollama pull "+o.Model, loc.T("Load it there, or set [model] name to one the server lists at /v1/models."))
	case embedMissing:
		b.Heading = loc.T("Entries are read for now, but will wait once you have written a while.")
		b.Problem = loc.T("%s does not have the embedding model %s yet.", name, o.EmbedModel)
		b.Command, b.Hint = ollamaOr(ollama, "ollama pull "+o.EmbedModel, loc.T("Load it there, or set [model] embed_name to one the server lists at /v1/models."))
	default:
		b.Problem = loc.T("Calls to the model server are failing; Recur keeps trying on its own.")
		if ollama {
			b.Problem = loc.T("Calls to Ollama are failing; Recur keeps trying on its own.")
		}
		b.Command, b.Hint = ollamaOr(ollama, "ollama ps", loc.T("Look at the model server's log."))
	}
	return b
}

// ollamaOr is the command to run for Ollama, or the hint for another server.
func ollamaOr(ollama bool, command, hint string) (string, string) {
	if ollama {
		return command, ""
	}
	return "", hint
}
