package web

import (
	"testing"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
)

// Every feature lock the pages show is said in the reader's language,
// locked or open, not in the journal's English sentence.
func TestLockReasonsInEachLanguage(t *testing.T) {
	t.Parallel()
	locks := []journal.FeatureLock{
		{Type: journal.LockPatterns, Locked: true, Current: 1, Required: 3, Reason: "English"},
		{Type: journal.LockPatterns, Current: 5, Required: 3, Reason: "English"},
		{Type: journal.LockCorrelations, Locked: true, Current: 2, Required: 6, Reason: "English"},
		{Type: journal.LockCorrelations, Scope: "p", Locked: true, Current: 2, Required: 6, Reason: "English"},
		{Type: journal.LockFlows, Locked: true, Required: 1, Reason: "English"},
		{Type: journal.LockFlows, Scope: "p", Locked: true, Required: 1, Reason: "English"},
	}
	for _, lang := range i18n.Languages() {
		if lang == i18n.Default {
			continue
		}
		loc := i18n.For(lang)
		for _, l := range locks {
			got, en := lockReason(loc, &l), lockReason(i18n.For("en"), &l)
			if got == "English" || got == en {
				t.Errorf("%s: the %s lock (scope %q, locked %v) reads %q", lang, l.Type, l.Scope, l.Locked, got)
			}
		}
	}
}
