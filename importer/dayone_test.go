package importer

import (
	"os"
	"testing"
)

// dayOneEntries is what testdata/dayone/Journal.json holds once cleaned,
// oldest first; its entries 4 (a photo alone) and 7 (no text) are skipped.
func dayOneEntries(file string) []Entry {
	return []Entry{
		{utc("2024-02-28T22:10:00Z"), "Couldn't sleep. Kept thinking about the move - what if the new flat is too small?", file + ", entry 1"},
		{utc("2024-03-01T07:15:00Z"), "Woke up early. Coffee on the balcony!\n\nFelt calm - for once.", file + ", entry 2"},
		{utc("2024-03-01T21:40:12Z"), "Long day at work. Argued with Sam about the deadline (again).\n\nTomorrow:\n1. sleep in\n2. walk *without* the phone", file + ", entry 3"},
		{utc("2024-03-03T18:23:11Z"), "# Sunday\n\nWalked to the lake with Mia. Cold but bright.", file + ", entry 5"},
		{utc("2024-03-05T06:50:30Z"), `Headache again after the late screen time... Plan: 50% less scrolling in bed, phone stays in the hall. Path for the backup: C:\Users\alex`, file + ", entry 6"},
	}
}

func TestReadDayOne(t *testing.T) {
	t.Parallel()
	t.Run("JSON", func(t *testing.T) {
		// The zone must not matter: Day One dates are UTC.
		res := mustRead(t, "dayone/Journal.json", Options{Location: berlin(t)})
		checkResult(t, res, DayOne, 2, dayOneEntries("dayone/Journal.json"))
	})
	t.Run("ByteOrderMark", func(t *testing.T) {
		data, err := os.ReadFile("testdata/dayone/Journal.json")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Read("Journal.json", append([]byte("\ufeff"), data...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res, DayOne, 2, dayOneEntries("Journal.json"))
	})
	t.Run("Zip", func(t *testing.T) {
		res := mustRead(t, "dayone.zip", Options{})
		checkResult(t, res, DayOne, 3, dayOneEntries("Journal.json"))
	})
	t.Run("SeveralJournals", func(t *testing.T) {
		journal, err := os.ReadFile("testdata/dayone/Journal.json")
		if err != nil {
			t.Fatal(err)
		}
		travel := `{"metadata":{"version":"1.0"},"entries":[{"uuid":"A1","creationDate":"2024-02-01T09:00:00Z","text":"Train to Prague\\."}]}`
		data := makeZip(t, zipFile{"Journal.json", string(journal)}, zipFile{"Travel.json", travel},
			zipFile{"photos/d41d8cd98f00b204e9800998ecf8427e.jpeg", tinyJPEG}, zipFile{"videos/3c59dc048e8850243be8079a5c74d079.mov", "mov"})
		res, err := Read("export.zip", data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := append([]Entry{{utc("2024-02-01T09:00:00Z"), "Train to Prague.", "Travel.json, entry 1"}}, dayOneEntries("Journal.json")...)
		checkResult(t, res, DayOne, 4, want)
	})
}

func TestCleanDayOne(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"Escapes", `1\. Done\! \(really\) \- \#1 \*not bold\*`, `1. Done! (really) - #1 *not bold*`},
		{"EscapedBackslash", `a\\b \\. c`, `a\b \. c`},
		{"OtherBackslashes", `C:\Users\me \n é\é`, `C:\Users\me \n é\é`},
		{"Photo", "Top\n\n![](dayone-moment://ABC123)\n\nBottom", "Top\n\nBottom"},
		{"Video", "![](dayone-moment:/video/ABC123)\nText", "Text"},
		{"AudioAndPDF", "A ![](dayone-moment:/audio/F00) B ![](dayone-moment:/pdfAttachment/BA4)", "A  B"},
		{"Caption", "![Lake at dusk](dayone-moment://ABC)", ""},
		{"OtherImage", "![cat](https://example.com/cat.png)", "![cat](https://example.com/cat.png)"},
		{"CRLF", "One\\.\r\nTwo", "One.\nTwo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cleanDayOne(c.in); got != c.want {
				t.Errorf("cleanDayOne(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
