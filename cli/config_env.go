package cli

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// configKey is one key of the configuration: where its value goes, its
// name in recur.toml and in the environment, and whether it is a secret.
// A secret (a field tagged secret:"true") can also be read from a file
// named by <key>_file in recur.toml or RECUR_<SECTION>_<KEY>_FILE, as
// Docker and Kubernetes secrets are mounted.
type configKey struct {
	field  reflect.Value
	name   string // section.key
	env    string // RECUR_SECTION_KEY
	secret bool
}

// configKeys lists every key of cfg, in the order of its sections.
func configKeys(cfg *Config) []configKey {
	var keys []configKey
	root := reflect.ValueOf(cfg).Elem()
	for i := range root.NumField() {
		section := root.Type().Field(i).Tag.Get("toml")
		sv := root.Field(i)
		if section == "-" || sv.Kind() != reflect.Struct {
			continue // not a section
		}
		for j := range sv.NumField() {
			f := sv.Type().Field(j)
			name := section + "." + f.Tag.Get("toml")
			keys = append(keys, configKey{field: sv.Field(j), name: name,
				env: "RECUR_" + strings.ToUpper(strings.ReplaceAll(name, ".", "_")), secret: f.Tag.Get("secret") == "true"})
		}
	}
	return keys
}

// secretPath is a file named to hold a secret key's value, and where it
// was named (recur.toml or a variable), for errors.
type secretPath struct {
	path, source string
}

// fileSecrets finds the <key>_file keys among the keys of recur.toml (at
// path, holding text) that decoding left undecoded, into files by key. Any
// other undecoded key is an error.
func fileSecrets(cfg *Config, path, text string, md toml.MetaData, files map[string]secretPath) error {
	var raw map[string]any
	for _, k := range md.Undecoded() {
		key, ok := secretKeyOfFile(cfg, k.String(), "_file", func(c configKey) string { return c.name })
		if !ok || len(k) != 2 {
			return &ConfigError{Source: path, Key: k.String(), Reason: "unknown key; " + suggest(k.String(), keyNames(cfg, false),
				"see config.example.toml for the keys there are")}
		}
		if raw == nil {
			if _, err := toml.Decode(text, &raw); err != nil {
				return tomlError(path, err)
			}
		}
		file, isText := raw[k[0]].(map[string]any)[k[1]].(string)
		if !isText {
			return &ConfigError{Source: path, Key: k.String(), Reason: "must be the path of a file, in quotes"}
		}
		if file == "" {
			continue
		}
		if md.IsDefined(strings.Split(key.name, ".")...) && key.field.String() != "" {
			return &ConfigError{Source: path, Reason: fmt.Sprintf("%s and %s are both set; keep one", key.name, k.String())}
		}
		files[key.name] = secretPath{path: file, source: path}
	}
	return nil
}

// secretKeyOfFile is the secret key whose file name is name: its own name
// (by nameOf) followed by suffix.
func secretKeyOfFile(cfg *Config, name, suffix string, nameOf func(configKey) string) (configKey, bool) {
	base, ok := strings.CutSuffix(name, suffix)
	if !ok {
		return configKey{}, false
	}
	for _, k := range configKeys(cfg) {
		if k.secret && nameOf(k) == base {
			return k, true
		}
	}
	return configKey{}, false
}

// applyEnv sets each key named by a RECUR_<SECTION>_<KEY> variable and
// reads the secrets named by RECUR_..._FILE variables.
func applyEnv(cfg *Config, environ []string) error {
	return applyEnvOver(cfg, environ, map[string]secretPath{})
}

// applyEnvOver is applyEnv over a file's settings: it then reads the
// secrets named by files (from recur.toml) too. The environment wins over
// recur.toml, a secret's file included. An unknown RECUR_ variable is an
// error, so a typo does not go unnoticed, except those Kubernetes makes for
// a Service named recur.
func applyEnvOver(cfg *Config, environ []string, files map[string]secretPath) error {
	keys := map[string]configKey{}
	for _, k := range configKeys(cfg) {
		keys[k.env] = k
	}
	setByEnv := map[string]string{} // secret key name: the variable that set it
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "RECUR_") {
			continue
		}
		if k, ok := keys[name]; ok {
			if err := setField(k.field, value); err != nil {
				return &ConfigError{Source: "environment " + name, Key: k.name, Reason: err.Error()}
			}
			if k.secret && value != "" {
				setByEnv[k.name] = name
				delete(files, k.name)
			}
			continue
		}
		if k, ok := secretKeyOfFile(cfg, name, "_FILE", func(c configKey) string { return c.env }); ok {
			if value != "" {
				setByEnv[k.name+"_file"] = name
				files[k.name] = secretPath{path: value, source: "environment " + name}
			}
			continue
		}
		if kubernetesVariable(name) {
			continue
		}
		return &ConfigError{Source: "environment", Key: name, Reason: "unknown variable; " + suggest(name, keyNames(cfg, true),
			"each RECUR_<SECTION>_<KEY> matches a key of config.example.toml")}
	}
	for _, k := range configKeys(cfg) {
		if v, f := setByEnv[k.name], setByEnv[k.name+"_file"]; v != "" && f != "" {
			return &ConfigError{Source: "environment", Reason: fmt.Sprintf("%s and %s are both set; keep one", v, f)}
		}
	}
	return readSecrets(cfg, files)
}

// readSecrets sets each secret key from its file: the file's content with
// one trailing newline trimmed (echo and most editors end a file with one).
func readSecrets(cfg *Config, files map[string]secretPath) error {
	for _, k := range configKeys(cfg) {
		file, ok := files[k.name]
		if !ok {
			continue
		}
		b, err := os.ReadFile(file.path)
		if err != nil {
			if cause := errors.Unwrap(err); cause != nil {
				err = cause
			}
			return &ConfigError{Source: file.source, Key: k.name + "_file", Reason: fmt.Sprintf("cannot read %s: %v", file.path, err)}
		}
		value, found := strings.CutSuffix(string(b), "\n")
		if found {
			value = strings.TrimSuffix(value, "\r")
		}
		k.field.SetString(value)
	}
	return nil
}

// kubernetesService matches the variables Kubernetes puts into every pod
// of a namespace for a Service named recur (unless the pod sets
// enableServiceLinks: false): RECUR_SERVICE_HOST, RECUR_SERVICE_PORT and
// RECUR_SERVICE_PORT_<PORT NAME>, and the Docker-link style RECUR_PORT,
// RECUR_PORT_<NUMBER>_<PROTOCOL> and its _PROTO, _PORT and _ADDR.
var kubernetesService = regexp.MustCompile(`^RECUR_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// kubernetesVariable reports whether name is one Kubernetes makes for a
// Service named recur, which Recur ignores.
func kubernetesVariable(name string) bool { return kubernetesService.MatchString(name) }

// keyNames lists the names of every key as recur.toml (section.key) or the
// environment (RECUR_SECTION_KEY) spells them, a secret's file included.
func keyNames(cfg *Config, env bool) []string {
	var names []string
	for _, k := range configKeys(cfg) {
		name, file := k.name, "_file"
		if env {
			name, file = k.env, "_FILE"
		}
		names = append(names, name)
		if k.secret {
			names = append(names, name+file)
		}
	}
	return names
}

// suggest is "did you mean X?" for the name closest to typo, when one is
// within three edits of it and those change at most a third of it;
// otherwise it is fallback.
func suggest(typo string, names []string, fallback string) string {
	best, bestDist := "", min(4, len(typo)/3+1)
	for _, n := range names {
		if d := editDistance(typo, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return fallback
	}
	return "did you mean " + best + "?"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
