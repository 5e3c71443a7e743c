package detect

import (
	"fmt"
	"testing"

	"github.com/recur-journal/recur/store"
)

// loopHistory is the chain of the journal that made three patterns of one
// thread: criticised by the manager, anxious, stays late, skips dinner.
func loopHistory() *history {
	h := newHistory("2026-11-10T12:00:00Z", "UTC")
	h.in.Categories["late"] = Category{ID: "late", Kind: store.TagBadBehaviour, Name: "staying late"}
	h.in.Categories["meals"] = Category{ID: "meals", Kind: store.TagBadBehaviour, Name: "skipping meals"}
	return h
}

func links(p *Pattern) string {
	if p == nil {
		return "no pattern"
	}
	return fmt.Sprint(p.Related)
}

func TestLoops(t *testing.T) {
	t.Parallel()
	t.Run("OneChainOneLoop", func(t *testing.T) {
		h := loopHistory()
		for _, d := range []string{"02", "04", "05", "07"} {
			h.add("2026-11-"+d+"T19:00:00Z", "c:meals", "c:late", "f:anxious", "c:boss")
		}
		h.add("2026-11-08T19:00:00Z", "c:boss", "f:anxious") // once without the rest
		for _, d := range []string{"01", "03", "06"} {
			h.add("2026-11-"+d+"T07:00:00Z", "c:run", "f:calm")
		}
		ps := Run(h.in)
		boss, late, meals, run := find(ps, "boss"), find(ps, "late"), find(ps, "meals"), find(ps, "run")
		if got, want := links(boss), "[{meals 4} {late 4}]"; got != want {
			t.Errorf("criticism at work related = %s, want %s", got, want)
		}
		if got, want := links(late), "[{boss 4} {meals 4}]"; got != want {
			t.Errorf("staying late related = %s, want %s (most shared days first, then by category name)", got, want)
		}
		if got, want := links(meals), "[{boss 4} {late 4}]"; got != want {
			t.Errorf("skipping meals related = %s, want %s", got, want)
		}
		for _, p := range []*Pattern{boss, late, meals} {
			if p.Lead != "boss" {
				t.Errorf("%s leads with %q, want the trigger boss", p.Name, p.Lead)
			}
		}
		if run == nil || len(run.Related) != 0 || run.Lead != "" {
			t.Errorf("exercise = %+v, want a pattern in no loop", run)
		}
	})
	t.Run("SharedOnTooFewDays", func(t *testing.T) {
		h := loopHistory()
		h.add("2026-11-02T19:00:00Z", "c:late", "f:anxious", "c:boss")
		h.add("2026-11-02T21:00:00Z", "c:late", "f:anxious", "c:boss") // the same day again
		h.add("2026-11-04T19:00:00Z", "c:late", "f:anxious", "c:boss")
		h.add("2026-11-06T19:00:00Z", "c:late", "f:anxious")
		h.add("2026-11-07T19:00:00Z", "c:boss", "f:anxious")
		ps := Run(h.in)
		if got := links(find(ps, "boss")); got != "[]" {
			t.Errorf("related = %s, want none: shared situations on two days only", got)
		}
	})
	// Snapping shows on five or six days, exercise on more; they share
	// three of snapping's situations: 60 % links, 50 % does not.
	for _, c := range []struct {
		name         string
		snap, shared int
		want         string
	}{{"ShareAtTheBar", 5, 3, "[{snap 3}]"}, {"ShareBelowTheBar", 6, 3, "[]"}} {
		t.Run(c.name, func(t *testing.T) {
			h := loopHistory()
			for d := 1; d <= 9; d++ {
				tags := []string{"f:sad"}
				if d <= c.snap {
					tags = append(tags, "c:snap")
				}
				if d > c.snap || d <= c.shared {
					tags = append(tags, "c:run")
				}
				h.add(fmt.Sprintf("2026-11-%02dT19:00:00Z", d), tags...)
			}
			// Three more days of exercise alone make it the bigger pattern.
			for d := 10; d <= 12; d++ {
				h.add(fmt.Sprintf("2026-10-%02dT19:00:00Z", d), "c:run", "f:sad")
			}
			ps := Run(h.in)
			if got := links(find(ps, "run")); got != c.want {
				t.Errorf("exercise related = %s, want %s", got, c.want)
			}
			if c.want != "[]" {
				if got := find(ps, "snap").Lead; got != "run" {
					t.Errorf("lead = %q, want run: no trigger, so the pattern seen on most days", got)
				}
			}
		})
	}
	t.Run("ConnectedGroup", func(t *testing.T) {
		// boss goes with late, late with meals, but boss and meals share
		// too little: still one loop, led by the trigger.
		h := loopHistory()
		for d := 1; d <= 3; d++ {
			h.add(fmt.Sprintf("2026-11-%02dT09:00:00Z", d), "c:boss", "c:late", "f:tense")
		}
		for d := 4; d <= 6; d++ {
			h.add(fmt.Sprintf("2026-11-%02dT09:00:00Z", d), "c:late", "c:meals", "f:tense")
		}
		ps := Run(h.in)
		if got := links(find(ps, "boss")); got != "[{late 3}]" {
			t.Fatalf("boss related = %s, want late only", got)
		}
		if got := find(ps, "meals").Lead; got != "boss" {
			t.Errorf("meals lead = %q, want boss through late", got)
		}
	})
}

func TestFlowsMostAssociated(t *testing.T) {
	t.Parallel()
	// Poor sleep: in most of its situations the writer was irritable and
	// snapped at Mika; in some guilty and apologised. A situation telling
	// both shows the one most of its situations tell, wherever it stands.
	h := newHistory("2026-11-10T12:00:00Z", "UTC")
	h.in.Categories["sleep"] = Category{ID: "sleep", Kind: store.TagTrigger, Name: "poor sleep"}
	h.in.Categories["sorry"] = Category{ID: "sorry", Kind: store.TagGoodBehaviour, Name: "apologising"}
	h.in.Feelings = map[string]Feeling{"guilty": {ID: "guilty", Name: "guilty", Valence: -1}, "irritable": {ID: "irritable", Name: "irritable", Valence: -1}}
	h.add("2026-11-02T08:00:00Z", "c:sleep", "f:guilty", "c:sorry", "f:irritable", "c:snap")
	h.add("2026-11-03T08:00:00Z", "c:sleep", "f:irritable", "c:snap")
	h.add("2026-11-04T08:00:00Z", "c:sleep", "f:irritable", "c:snap")
	h.add("2026-11-05T08:00:00Z", "c:sleep", "f:guilty", "c:sorry")
	p := find(Run(h.in), "sleep")
	if p == nil || len(p.Flows) != 4 {
		t.Fatalf("pattern %+v, want four flows", p)
	}
	if f := p.Flows[0]; f.Feeling != "irritable" || f.Behaviour != "snap" {
		t.Errorf("flow = %s -> %s, want irritable -> snap, as three of four situations tell", f.Feeling, f.Behaviour)
	}
	if f := p.Flows[3]; f.Feeling != "guilty" || f.Behaviour != "sorry" {
		t.Errorf("flow = %s -> %s, want guilty -> sorry, all that situation tells", f.Feeling, f.Behaviour)
	}

	t.Run("TieByOrderNamed", func(t *testing.T) {
		h := newHistory("2026-11-10T12:00:00Z", "UTC")
		for d := 1; d <= 3; d++ {
			h.add(fmt.Sprintf("2026-11-%02dT08:00:00Z", d), "c:boss", "f:tense", "f:anxious", "c:snap", "c:run")
		}
		p := find(Run(h.in), "boss")
		if f := p.Flows[0]; f.Feeling != "tense" || f.Behaviour != "snap" {
			t.Errorf("flow = %s -> %s, want tense -> snap: of equal counts, the one named first, never the first by name", f.Feeling, f.Behaviour)
		}
	})
}
