package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/journal"
)

// exportWriteWait is how long one write of a streamed export may take
// before the connection is given up; each write moves the deadline this far.
const exportWriteWait = time.Minute

func (s *Server) registerAccount() {
	o := op(http.MethodDelete, "/users/me", "delete-current-user", "Account", "Delete the account and everything of it",
		account.ScopeAll, http.StatusUnauthorized, http.StatusForbidden, http.StatusLocked)
	o.DefaultStatus = http.StatusNoContent
	o.Description = "Needs a browser session confirmed within the last 15 minutes (POST /user/confirm-password or POST /user/confirmations), " +
		"else 423. No token may delete the account, not even one with every scope: 403. A token cannot be confirmed, and one leaked " +
		"from a script or a phone must not be able to erase a journal for good. " +
		"Removes the user and everything of theirs at once and for good: entries and all that was found in them, patterns, settings, " +
		"feedback, tokens, apps, browser sessions (every one is signed out), push tokens and job batches. Answers 204 and ends the session."
	huma.Register(s.api, o, s.deleteCurrentUser)

	o = op(http.MethodGet, "/users/me/export/markdown", "export-account-markdown", "Account", "Download the journal as Markdown files",
		account.ScopeAccountExport, http.StatusUnauthorized, http.StatusForbidden)
	o.Description += " Answers a zip with one Markdown file per entry, oldest first, named `YYYY/YYYY-MM-DD-HHMM-<short id>.md` after the entry's " +
		"moment in the account's timezone. Each file opens with a YAML front matter: `date` (the moment with its offset, to the microsecond), " +
		"`language`, `tags` (a list of names per tag type), `patterns` (names of the patterns the entry is part of) and `translated: true` when " +
		"the analysis translated it; then the entry's text as written, and the English translation under the heading `" + importer.MarkdownTranslationHeading + "`. " +
		"The zip is written as it is read, so a large journal starts downloading at once. POST /captures/import (or recur import) reads it " +
		"back: each text at its moment, the translation left out. The JSON export (GET /users/me/export) is the one that restores everything."
	o.Responses = map[string]*huma.Response{strconv.Itoa(http.StatusOK): {Description: "The zip of Markdown files.",
		Headers: map[string]*huma.Param{"Content-Disposition": {Description: "attachment, with a file name such as recur-2026-11-22.zip.",
			Schema: &huma.Schema{Type: huma.TypeString}}},
		Content: map[string]*huma.MediaType{"application/zip": {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}}}}}
	huma.Register(s.api, o, s.exportMarkdown)
}

func (s *Server) deleteCurrentUser(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.accounts.DeleteAccount(ctx, current(ctx))
}

func (s *Server) exportMarkdown(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
	userID := current(ctx).User.ID
	name := "recur-" + s.opts.Store.Now().Format("2006-01-02") + ".zip"
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := humago.Unwrap(hctx)
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		err := journal.ExportMarkdown(r.Context(), s.opts.Store, userID, &deadlineWriter{w: w, rc: rc})
		if err != nil && !clientGone(r.Context()) {
			// The status is sent: the client sees a zip cut short.
			logger(r.Context()).Error("markdown export", "error", err)
		}
	}}, nil
}

// deadlineWriter moves the connection's write deadline ahead before every
// write, so that the server's write timeout does not cut a long download
// while a client that stops reading is still given up.
type deadlineWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if err := d.rc.SetWriteDeadline(time.Now().Add(exportWriteWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return d.w.Write(p)
}
