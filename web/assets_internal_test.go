package web

import (
	"testing"
	"testing/fstest"
)

// The files' version changes with any byte of any file, with a name, and
// with bytes moved from one file to the next; it stays with the same files.
func TestFilesVersion(t *testing.T) {
	files := func(kv ...string) fstest.MapFS {
		m := fstest.MapFS{"other/x.js": {Data: []byte("not hashed")}}
		for i := 0; i < len(kv); i += 2 {
			m["static/"+kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
		}
		return m
	}
	base := filesVersion(files("a.js", "let a;", "b.css", "p{}"), "static")
	if again := filesVersion(files("b.css", "p{}", "a.js", "let a;"), "static"); again != base {
		t.Errorf("the same files gave %s and %s", base, again)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"a byte":      files("a.js", "let b;", "b.css", "p{}"),
		"a name":      files("c.js", "let a;", "b.css", "p{}"),
		"moved bytes": files("a.js", "let a;p", "b.css", "{}"),
		"a new file":  files("a.js", "let a;", "b.css", "p{}", "c.js", ""),
	} {
		if v := filesVersion(fsys, "static"); v == base {
			t.Errorf("%s changed, the version %s did not", name, v)
		}
	}
	if v := assetVersion(); len(v) != 12 {
		t.Errorf("assetVersion() = %q, want twelve hex digits", v)
	}
}
