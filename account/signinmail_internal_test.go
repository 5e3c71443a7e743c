package account

import (
	"testing"

	"github.com/recur-journal/recur/store"
	"github.com/recur-journal/recur/store/storetest"
)

// Known and unknown addresses must not be told apart by how long the
// answer takes. What would tell them apart is a difference in work: a
// look-up or a write on the request path for known addresses only. So the
// request path is run with the database closed and no worker taking the
// queue: both must be accepted, from validation, rate limits and a queue
// alone, and both addresses must be waiting for the workers, in the order
// asked. (The server's TestAddressRoutesDoTheSameWork holds the answers to
// the same over HTTP.)
func TestAskSignInMailDoesTheSameWork(t *testing.T) {
	st := storetest.MustOpen(t)
	if err := st.CreateUser(t.Context(), &store.User{Email: "known@example.com"}); err != nil {
		t.Fatal(err)
	}
	a, _ := newTestAccounts(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := from(t.Context(), "127.0.0.7")
	for _, email := range []string{"known@example.com", "unknown@example.com"} {
		if err := a.AskSignInMail(ctx, email, false); err != nil {
			t.Errorf("%s with the database closed: %v, want it queued: the request path reads or writes the database", email, err)
		}
	}
	var queued []string
	for len(a.signIns) > 0 {
		queued = append(queued, (<-a.signIns).email)
	}
	if len(queued) != 2 || queued[0] != "known@example.com" || queued[1] != "unknown@example.com" {
		t.Errorf("queued for the workers: %q, want both addresses in the order asked", queued)
	}
}
