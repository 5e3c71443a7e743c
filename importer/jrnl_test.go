package importer

import (
	"os"
	"testing"
)

func TestReadJRNL(t *testing.T) {
	t.Parallel()
	res := mustRead(t, "jrnl.json", Options{Location: berlin(t)})
	// Berlin is an hour ahead of UTC in winter and two from 31 March 2024.
	checkResult(t, res, JRNL, 1, []Entry{
		{utc("2024-03-01T06:30:00Z"), "Slept badly again. Woke at 3 and kept going over the @work review.", "jrnl.json, entry 1"},
		{utc("2024-03-01T12:05:00Z"), "Lunch with @sam\nWe talked about the move.\nHe thinks I should wait until summer.", "jrnl.json, entry 2"},
		{utc("2024-03-02T21:45:00Z"), "Too tired to write much today.", "jrnl.json, entry 3"},
		{utc("2024-03-04T05:10:00Z"), "Ran 5k before @work! Knees fine. Felt great for the rest of the morning.", "jrnl.json, entry 4"},
		{utc("2024-03-31T07:00:00Z"), "早上很累。晚上早点睡。", "jrnl.json, entry 5"},
	})
	t.Run("Zip", func(t *testing.T) {
		data, err := os.ReadFile("testdata/jrnl.json")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Read("jrnl.zip", makeZip(t, zipFile{"export/jrnl.json", string(data)}, zipFile{"export/notes.md", "x"}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Format, JRNL; got != want {
			t.Errorf("Format = %q, want %q", got, want)
		}
		if got, want := len(res.Entries), 5; got != want {
			t.Errorf("%d entries, want %d", got, want)
		}
		if got, want := res.Entries[0].Source, "export/jrnl.json, entry 1"; got != want {
			t.Errorf("Source = %q, want %q", got, want)
		}
	})
	t.Run("UTC", func(t *testing.T) {
		res := mustRead(t, "jrnl.json", Options{})
		if got, want := res.Entries[0].OccurredAt, utc("2024-03-01T07:30:00Z"); !got.Equal(want) {
			t.Errorf("without a Location the first entry is at %v, want %v", got, want)
		}
	})
}

func TestJoinTitle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ title, body, want string }{
		{"One line only.", "", "One line only."},
		{"First sentence.", "Second sentence.", "First sentence. Second sentence."},
		{`He said "no."`, "So I left.", `He said "no." So I left.`},
		{"A heading", "Its body.", "A heading\nIts body."},
		{"Done.", "Line one\nline two", "Done.\nLine one\nline two"},
		{"", "Only a body", "Only a body"},
	} {
		if got := joinTitle(c.title, c.body); got != c.want {
			t.Errorf("joinTitle(%q, %q) = %q, want %q", c.title, c.body, got, c.want)
		}
	}
}
