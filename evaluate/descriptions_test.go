package evaluate

import (
	"strings"
	"testing"
)

// TestDescriptionsInTheWritersLanguage: a description is right when it
// reads as the journal's locale once the patterns' own names (English
// category names) are left out, and wrong, naming what it reads as,
// otherwise.
func TestDescriptionsInTheWritersLanguage(t *testing.T) {
	t.Parallel()
	j := mustParse(t, strings.Replace(tiny, `"timezone": "America/Chicago",`, `"timezone": "America/Chicago", "locale": "fr-CA",`, 1))
	r := scoreDescriptions(j, []FoundPattern{
		{Name: "criticism from Dana", Description: "Cela revient souvent dans votre journal : criticism from Dana. Vous vous sentez alors anxieuse, et cela vous reste un moment."},
		{Name: "staying late at the office", Description: "This keeps coming back for you: staying late at the office. You tend to feel tired when it does."},
		{Name: "not yet described"},
	})
	if r.Language != "fr" || r.Written != 2 || r.InLanguage != 1 || len(r.Wrong) != 1 || !strings.Contains(r.Wrong[0], "staying late at the office (reads as en)") {
		t.Errorf("report = %+v, want 1 of 2 in fr, the English one named", r)
	}
	if _, err := Parse([]byte(strings.Replace(tiny, `"timezone": "America/Chicago",`, `"timezone": "America/Chicago", "locale": "not a tag!",`, 1))); err == nil {
		t.Error("a journal with a locale that is no language tag was taken")
	}
}
