package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/importer"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// JobBatch is bulk work: an import or a re-analysis, each job the analysis
// run of one capture.
type JobBatch struct {
	ID            string     `json:"id" format:"uuid"`
	Name          string     `json:"name" doc:"What the batch does, such as \"Import of Journal.json (Day One)\"."`
	TotalJobs     int        `json:"total_jobs" doc:"Captures the batch analyses."`
	PendingJobs   int        `json:"pending_jobs" doc:"Captures still waiting for, or in, their run."`
	ProcessedJobs int        `json:"processed_jobs" doc:"Captures analysed."`
	FailedJobs    int        `json:"failed_jobs" doc:"Captures whose run failed (their text is kept), or that were deleted before it."`
	Progress      int        `json:"progress" minimum:"0" maximum:"100" doc:"Percent of the jobs that have ended, rounded down: 100 when the batch is finished."`
	CreatedAt     Timestamp  `json:"created_at"`
	FinishedAt    *Timestamp `json:"finished_at" nullable:"true" doc:"When the last job ended; at once for a batch with nothing to do. Null while jobs are pending."`
	CancelledAt   *Timestamp `json:"cancelled_at" nullable:"true" doc:"When the batch was cancelled: a re-analysis is, when a new one starts before it finished (the new one covers every capture). Its pending jobs are then counted in none of pending, processed or failed."`
}

func newJobBatch(b *store.JobBatch) JobBatch {
	return JobBatch{ID: b.ID, Name: b.Name, TotalJobs: b.Total, PendingJobs: b.Pending, ProcessedJobs: b.Processed,
		FailedJobs: b.Failed, Progress: b.Progress(), CreatedAt: Timestamp(b.CreatedAt),
		FinishedAt: stamp(b.FinishedAt), CancelledAt: stamp(b.CancelledAt)}
}

type jobBatchInput struct {
	JobBatch string `path:"jobBatch" format:"uuid" doc:"The job batch's id."`
}

type batchOutput struct {
	Location string `header:"Location" doc:"Where to follow the batch's progress."`
	Body     Data[JobBatch]
}

const importOperation = "import-captures"

type importInput struct {
	ContentType string `header:"Content-Type" doc:"multipart/form-data for a form; anything else for the file itself, which is recognised by its content."`
	Filename    string `query:"filename" maxLength:"255" doc:"The upload's file name, when the body is the file itself: it names the import, and a name ending in .md, .markdown or .txt marks a single Markdown entry."`
	body        io.Reader
}

// Resolve takes the request body as a stream: the importer copies it to a
// temporary file once it holds an import slot, so that an upload is never
// held in memory whole.
func (in *importInput) Resolve(ctx huma.Context) []error {
	in.body = ctx.BodyReader()
	return nil
}

func (s *Server) registerImports() {
	huma.Register(s.api, op(http.MethodGet, "/job-batches/{jobBatch}", "get-job-batch", "Captures", "Follow a job batch",
		account.ScopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound), s.getJobBatch)

	s.importer = journal.NewImporter(s.opts.Store, journal.MaxImportsAtOnce)
	s.importer.Spool = s.opts.Spool
	o := op(http.MethodPost, "/captures/import", importOperation, "Captures", "Import a journal",
		account.ScopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity,
		http.StatusTooManyRequests, http.StatusInsufficientStorage)
	o.DefaultStatus = http.StatusAccepted
	o.Description += importDescription
	huma.Register(s.api, o, s.importCaptures)
	// Described after registering: a request body with a schema would make
	// Huma decode and validate the upload, which only the importer reads.
	body := &huma.RequestBody{
		Required:    true,
		Description: "The file itself (any content type: it is recognised by its content), or a multipart form with the file, or several Markdown files, in fields named file.",
		Content: map[string]*huma.MediaType{
			"application/json":    {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}},
			"application/zip":     {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}},
			"text/markdown":       {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}},
			"multipart/form-data": {Schema: &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{"file": {Type: huma.TypeString, Format: "binary"}}}},
		},
	}
	s.api.OpenAPI().Paths["/captures/import"].Post.RequestBody = body

	o = op(http.MethodPost, "/captures/reanalyse", "reanalyse-captures", "Captures", "Analyse every capture again",
		account.ScopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden)
	o.DefaultStatus = http.StatusAccepted
	o.Description += " Queues every capture of the account for a new run, oldest first, as after a change of model, and answers with the job batch that follows them. Entries written meanwhile go first. A capture keeps what was found in it until its new run commits; a run that fails leaves the capture failed. Starting a re-analysis cancels one that has not finished."
	huma.Register(s.api, o, s.reanalyse)

	o = op(http.MethodGet, "/users/me/export", "export-account", "Account", "Download everything",
		account.ScopeAccountExport, http.StatusUnauthorized, http.StatusForbidden)
	o.Description += " Answers one JSON document with all of the account's journal: settings, categories, tags, captures, segments and their tags, patterns, correlations and flows, each as a list of records. Passwords, two-factor secrets, tokens and apps are never part of it. POST /captures/import (or recur import) brings it back: into an account without entries, everything is restored as it was, review decisions included; into one with entries, only the captures' texts are added, as with any import."
	o.Responses = map[string]*huma.Response{"200": {Description: "The export document.", Content: map[string]*huma.MediaType{
		"application/json": {Schema: &huma.Schema{Type: huma.TypeObject, Description: "format \"recur-export\", version 1, exported_at, user, and one list per table."}}}}}
	huma.Register(s.api, o, s.export)
}

const importDescription = ` Takes a Day One JSON export (its .zip, or the Journal.json in it), a jrnl JSON export (jrnl --export json), a zip of Markdown files with dates (or several Markdown files in one multipart form), a single Markdown file, or an export of Recur itself. Each entry becomes a capture dated as in the journal, and the captures are analysed oldest first, behind entries written meanwhile; the answer is the job batch that follows them (202). Entries already here (the same moment and text) are left out, so importing the same file again adds nothing. A file that cannot be read answers 422 under file, naming the entry or file at fault, and nothing is imported. In an export of Recur, every id a record refers to must be that of a record of the same export: one naming anything else (another account's entry, tag or pattern, say) answers 422 under file, naming the record, and nothing is imported. Dates without a time zone are read in the account's timezone setting; a date without a time becomes noon. An entry longer than 10000 characters is split at paragraph breaks into several captures of the same moment. Uploads are limited to 64 MiB: upload the JSON of a Day One export without its photos, or run recur import on the server. Once unpacked, a Markdown or text file may hold at most 4 MiB, a JSON export (a Recur export included) 64 MiB, one entry of a Day One or jrnl export 4 MiB, and an upload 512 MiB, 100000 files, 100000 entries and 128 MiB of text; a zip's list of files may take at most 8 MiB, a path 1024 bytes and 32 folders, and a form at most 1000 files. Over a limit answers 422 under file, naming the file and the limit. A Recur export larger than that (a fully analysed journal of some 10,000 entries or more) is brought back by its owner with recur import on the server, which reads an export of any size a record at a time. One import per account runs at a time, and two in all: beyond either the answer is 429 with Retry-After, saying which. The upload is copied to the data folder while it is read; when the disk has no room for it, the answer is 507 with a sentence, and nothing of it is kept.`

// Importer is the importer behind POST /captures/import, for the web app's
// import form to share its limits.
func (s *Server) Importer() *journal.Importer { return s.importer }

func (s *Server) getJobBatch(ctx context.Context, in *jobBatchInput) (*struct{ Body Data[JobBatch] }, error) {
	b, err := s.opts.Store.FindJobBatch(ctx, current(ctx).User.ID, in.JobBatch)
	if err != nil {
		return nil, err
	}
	return one(newJobBatch(b)), nil
}

func (s *Server) batchAnswer(ctx context.Context, b *store.JobBatch) *batchOutput {
	if s.opts.Analyser != nil && b.Pending > 0 {
		s.opts.Analyser.Notify()
	}
	return &batchOutput{Location: link(ctx, "/job-batches/"+b.ID), Body: Data[JobBatch]{Data: newJobBatch(b)}}
}

func (s *Server) importCaptures(ctx context.Context, in *importInput) (*batchOutput, error) {
	r, err := s.importer.Import(ctx, current(ctx).User.ID, journal.Upload{ContentType: in.ContentType, Filename: in.Filename, Body: in.body})
	var ie *importer.Error
	var busy *journal.BusyError
	var space *journal.SpaceError
	switch {
	case errors.As(err, &ie):
		return nil, invalid("file", ie.Error())
	case errors.As(err, &space):
		logger(ctx).Error("import not spooled", "error", space.Err)
		return nil, &apiError{status: http.StatusInsufficientStorage, Message: space.Message}
	case errors.As(err, &busy):
		return nil, &apiError{status: http.StatusTooManyRequests, Message: busy.Message,
			headers: http.Header{"Retry-After": {strconv.Itoa(busy.RetryAfter)}}}
	case err != nil:
		return nil, err
	}
	return s.batchAnswer(ctx, r.Batch), nil
}

func (s *Server) reanalyse(ctx context.Context, _ *struct{}) (*batchOutput, error) {
	b, err := s.opts.Store.Reanalyse(ctx, current(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	return s.batchAnswer(ctx, b), nil
}

func (s *Server) export(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
	userID := current(ctx).User.ID
	name := "recur-export-" + s.opts.Store.Now().Format("2006-01-02") + ".json"
	// Streamed as the store writes it, a record at a time: a journal of any
	// size is never held in memory whole.
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := humago.Unwrap(hctx)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		err := s.opts.Store.Export(r.Context(), userID, &deadlineWriter{w: w, rc: http.NewResponseController(w)})
		if err != nil && !clientGone(r.Context()) {
			// The status is sent: the client sees a document cut short.
			logger(r.Context()).Error("export", "error", err)
		}
	}}, nil
}
