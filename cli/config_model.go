package cli

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// validate checks the [model] section.
func (c *ModelConfig) validate() error {
	bad := func(key, format string, args ...any) error {
		return &ConfigError{Source: "value", Key: "model." + key, Reason: fmt.Sprintf(format, args...)}
	}
	if !slices.Contains([]string{"ollama", "openai"}, c.Provider) {
		return bad("provider", "%q is neither ollama nor openai (any OpenAI-compatible server)", c.Provider)
	}
	urls := c.URLs()
	for _, u := range urls {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return bad("url", "%q is not an http URL, like http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8081/v1 (openai)", u)
		}
	}
	if len(urls) == 0 {
		return bad("url", "must name the model server, like http://127.0.0.1:11434")
	}
	if len(urls) > 16 {
		return bad("url", "names %d servers; 16 at most", len(urls))
	}
	if c.Name == "" {
		return bad("name", "must name a model, like qwen2.5:7b")
	}
	if c.APIKey != "" && c.Provider != "openai" {
		return bad("api_key", "is sent to an openai server only; remove it, or set provider = \"openai\"")
	}
	if c.Workers < 1 || c.Workers > 64 {
		return bad("workers", "must be 1 to 64")
	}
	if c.Timeout.Duration <= 0 {
		return bad("timeout", "must be positive")
	}
	return nil
}

// URLs are the model servers url names, separated by commas.
func (c *ModelConfig) URLs() []string {
	var out []string
	for _, u := range strings.Split(c.URL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// legacyKeys are the keys of [ollama] by their names in [model].
var legacyKeys = map[string]string{"url": "url", "name": "model", "embed_name": "embed_model", "timeout": "timeout", "workers": "workers"}

// legacyNames is whether [ollama] was used: its validation errors then name
// the keys that were set.
type legacyNames bool

// adoptOllama moves the older [ollama] section and RECUR_OLLAMA_*
// variables, if set, into [model], and sets the line that says so at
// start. Setting both the older and the newer names is an error that says
// which to keep.
func (c *Config) adoptOllama(path string, md toml.MetaData, environ []string) (legacyNames, error) {
	var oldSet, newSet []string
	if md.IsDefined("ollama") {
		oldSet = append(oldSet, "[ollama] in "+path)
	}
	if md.IsDefined("model") {
		newSet = append(newSet, "[model] in "+path)
	}
	setByEnv := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if key, ok := strings.CutPrefix(name, "RECUR_OLLAMA_"); ok {
			oldSet = append(oldSet, name)
			setByEnv[strings.ToLower(key)] = true
		} else if strings.HasPrefix(name, "RECUR_MODEL_") {
			newSet = append(newSet, name)
		}
	}
	if len(oldSet) == 0 {
		return false, nil
	}
	if len(newSet) > 0 {
		return true, &ConfigError{Source: "model server", Reason: fmt.Sprintf("both %s and the older %s are set; keep [model] and RECUR_MODEL_*, and remove [ollama] and RECUR_OLLAMA_*",
			strings.Join(newSet, ", "), strings.Join(oldSet, ", "))}
	}
	o := c.Ollama
	values := map[string]func(){
		"url": func() { c.Model.URL = o.URL }, "model": func() { c.Model.Name = o.Model },
		"embed_model": func() { c.Model.EmbedName = o.EmbedModel }, "timeout": func() { c.Model.Timeout = o.Timeout },
		"workers": func() { c.Model.Workers = o.Workers },
	}
	for _, old := range legacyKeys {
		if md.IsDefined("ollama", old) || setByEnv[old] {
			values[old]()
		}
	}
	c.Model.Provider = "ollama"
	c.Deprecated = "[ollama] and RECUR_OLLAMA_* are the older names of [model] and RECUR_MODEL_*, and will go: " +
		"rename the section [model], its model to name and embed_model to embed_name (RECUR_MODEL_NAME, RECUR_MODEL_EMBED_NAME)"
	return true, nil
}

// rename makes a validation error of [model] name the [ollama] key it
// came from, when [ollama] was used.
func (l legacyNames) rename(err error) error {
	ce, ok := err.(*ConfigError)
	if !bool(l) || !ok {
		return err
	}
	if key, ok := strings.CutPrefix(ce.Key, "model."); ok && legacyKeys[key] != "" {
		ce.Key = "ollama." + legacyKeys[key]
	}
	return err
}
