package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// A refused description says which of its rules it broke.
func TestDescriptionRefusalReasons(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		`You call it "fine" when it is not.`:              "description quotes (\")",
		"Your mother calls and you feel “guilty”.":        "description quotes (“)",
		"You feel anxious. You should take a break.":      `gives advice ("should")`,
		"You feel anxious. You shouldn’t stay late.":      `gives advice ("shouldn't")`,
		"You feel tense. Try to leave on time.":           `gives advice ("try to")`,
		"You feel tense. Consider a walk after work.":     `gives advice ("consider")`,
		"You feel tense. It might help to talk about it.": `gives advice ("it might help")`,
		"You feel tense. Make sure you eat lunch.":        `gives advice ("make sure")`,
	} {
		content, _ := json.Marshal(map[string]string{"description": text})
		_, err := acceptDescription(string(content), "", nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a refusal saying %s", text, err, want)
		}
	}
}
