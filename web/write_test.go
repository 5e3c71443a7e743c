package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recur-journal/recur/store"
)

// postForScript sends the write form as the page's script does: the same
// form, asking for JSON.
func (b *browser) postForScript(path string, form url.Values) answer {
	req, _ := http.NewRequest("POST", b.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Origin", b.h.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.send(req)
}

// The write form sent by the page's script is answered with the new entry
// drawn as the journal lists it, or with the form's sentence, never with a
// redirect; a form sent without script still gets the redirect.
func TestWriteForScript(t *testing.T) {
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(-30 * time.Minute)
	h := newHarnessAt(t, nil, func() time.Time { return now })
	// Today is the UTC day of now, whatever RECUR_TEST_TIMEZONE says.
	if err := h.store.PutSetting(context.Background(), h.alice.ID, &store.Setting{Key: store.SettingTimezone, Value: "UTC"}); err != nil {
		t.Fatal(err)
	}
	alice := h.signIn(h.alice)

	a := alice.postForScript("/entries", url.Values{"text": {"Written <without> a reload."}})
	if a.status != http.StatusCreated {
		t.Fatalf("POST /entries for the script = %d, want 201\n%s", a.status, a.body)
	}
	var got struct {
		Data struct{ ID, Date, Heading, HTML string }
	}
	if err := json.Unmarshal([]byte(a.body), &got); err != nil {
		t.Fatalf("%v\n%s", err, a.body)
	}
	d := got.Data
	if d.ID == "" || d.Date != now.Format(time.DateOnly) || d.Heading != "Today" {
		t.Errorf("answer %+v, want the new entry under today", d)
	}
	for _, want := range []string{`data-capture-id="` + d.ID + `" data-status="queued"`, "Waiting to be read", "Written &lt;without&gt; a reload.",
		`href="/entries/` + d.ID + `#edit"`, `action="/entries/` + d.ID + `/delete"`} {
		if !strings.Contains(d.HTML, want) {
			t.Errorf("the entry's HTML lacks %q:\n%s", want, d.HTML)
		}
	}
	has(t, "journal", alice.get("/"), 200, `data-capture-id="`+d.ID+`"`)

	a = alice.postForScript("/entries", url.Values{"text": {"Later."}, "date": {now.AddDate(0, 0, 1).Format(time.DateOnly)}})
	if a.status != http.StatusUnprocessableEntity || a.body != `{"errors":{"date":["That date is in the future: pick today or an earlier day."]},"message":"That date is in the future: pick today or an earlier day."}`+"\n" {
		t.Errorf("a later day for the script = %d %s, want 422 with the date's sentence", a.status, a.body)
	}
	a = alice.postForScript("/entries", url.Values{"text": {" "}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, `"text":["The text field is required."]`) {
		t.Errorf("no text for the script = %d %s, want 422 under text", a.status, a.body)
	}
	if a := alice.post("/entries", url.Values{"text": {"Without script."}}); a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/#entry-") {
		t.Errorf("the form without script = %d to %q, want 303 to the entry", a.status, a.location)
	}
}
