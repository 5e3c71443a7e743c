package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/importer"
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

const (
	importOperation = "import-captures"
	emptyUpload     = "The upload is empty: send a Day One or jrnl JSON export, a zip of Markdown files or a Markdown file."
)

type importInput struct {
	ContentType string `header:"Content-Type" doc:"multipart/form-data for a form; anything else for the file itself, which is recognised by its content."`
	Filename    string `query:"filename" maxLength:"255" doc:"The upload's file name, when the body is the file itself: it names the import, and a name ending in .md, .markdown or .txt marks a single Markdown entry."`
	body        io.Reader
}

// Resolve takes the request body as a stream: the handler copies it to a
// temporary file once it holds an import slot, so that an upload is never
// held in memory whole.
func (in *importInput) Resolve(ctx huma.Context) []error {
	in.body = ctx.BodyReader()
	return nil
}

type exportOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition"`
	Body               []byte
}

func (s *Server) registerImports() {
	huma.Register(s.api, op(http.MethodGet, "/job-batches/{jobBatch}", "get-job-batch", "Captures", "Follow a job batch",
		scopeCapturesRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound), s.getJobBatch)

	s.imports = newImportSlots(maxImportsAtOnce)
	o := op(http.MethodPost, "/captures/import", importOperation, "Captures", "Import a journal",
		scopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity,
		http.StatusTooManyRequests)
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
		scopeCapturesWrite, http.StatusUnauthorized, http.StatusForbidden)
	o.DefaultStatus = http.StatusAccepted
	o.Description += " Queues every capture of the account for a new run, oldest first, as after a change of model, and answers with the job batch that follows them. Entries written meanwhile go first. A capture keeps what was found in it until its new run commits; a run that fails leaves the capture failed. Starting a re-analysis cancels one that has not finished."
	huma.Register(s.api, o, s.reanalyse)

	o = op(http.MethodGet, "/users/me/export", "export-account", "Account", "Download everything",
		scopeAccountExport, http.StatusUnauthorized, http.StatusForbidden)
	o.Description += " Answers one JSON document with all of the account's journal: settings, categories, tags, captures, segments and their tags, patterns, correlations and flows, each as a list of records. Passwords, two-factor secrets, tokens and apps are never part of it. POST /captures/import (or recur import) brings it back: into an account without entries, everything is restored as it was, review decisions included; into one with entries, only the captures' texts are added, as with any import."
	o.Responses = map[string]*huma.Response{"200": {Description: "The export document.", Content: map[string]*huma.MediaType{
		"application/json": {Schema: &huma.Schema{Type: huma.TypeObject, Description: "format \"recur-export\", version 1, exported_at, user, and one list per table."}}}}}
	huma.Register(s.api, o, s.export)
}

const importDescription = ` Takes a Day One JSON export (its .zip, or the Journal.json in it), a jrnl JSON export (jrnl --export json), a zip of Markdown files with dates (or several Markdown files in one multipart form), a single Markdown file, or an export of Recur itself. Each entry becomes a capture dated as in the journal, and the captures are analysed oldest first, behind entries written meanwhile; the answer is the job batch that follows them (202). Entries already here (the same moment and text) are left out, so importing the same file again adds nothing. A file that cannot be read answers 422 under file, naming the entry or file at fault, and nothing is imported. Dates without a time zone are read in the account's timezone setting; a date without a time becomes noon. An entry longer than 10000 characters is split at paragraph breaks into several captures of the same moment. Uploads are limited to 64 MiB: upload the JSON of a Day One export without its photos, or run recur import on the server. Once unpacked, a Markdown or text file may hold at most 4 MiB, a JSON export 64 MiB, one entry of a Day One or jrnl export 4 MiB, and an upload 512 MiB, 100000 files, 100000 entries and 128 MiB of text; a zip's list of files may take at most 8 MiB, a path 1024 bytes and 32 folders, and a form at most 1000 files. Over a limit answers 422 under file, naming the file and the limit. One import per account runs at a time, and two in all: beyond either the answer is 429 with Retry-After, saying which.`

func (s *Server) getJobBatch(ctx context.Context, in *jobBatchInput) (*struct{ Body Data[JobBatch] }, error) {
	b, err := s.opts.Store.FindJobBatch(ctx, current(ctx).User.ID, in.JobBatch)
	if err != nil {
		return nil, err
	}
	return one(newJobBatch(b)), nil
}

func (s *Server) batchAnswer(b *store.JobBatch) *batchOutput {
	if s.opts.Analyser != nil && b.Pending > 0 {
		s.opts.Analyser.Notify()
	}
	return &batchOutput{Location: s.url("/job-batches/" + b.ID), Body: Data[JobBatch]{Data: newJobBatch(b)}}
}

func (s *Server) importCaptures(ctx context.Context, in *importInput) (*batchOutput, error) {
	userID := current(ctx).User.ID
	release, err := s.imports.acquire(userID)
	if err != nil {
		return nil, err
	}
	defer release()
	loc, err := s.opts.Store.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	name, res, err := readUpload(in, importer.Options{Location: loc, MaxText: store.CaptureMaxLength})
	var ie *importer.Error
	if errors.As(err, &ie) {
		return nil, invalid("file", ie.Error())
	} else if err != nil {
		return nil, err
	}
	r, err := Import(ctx, s.opts.Store, userID, name, res)
	if err != nil {
		return nil, err
	}
	return s.batchAnswer(r.Batch), nil
}

// Import hands what an upload held to the store, as one batch named after
// the upload.
func Import(ctx context.Context, st *store.Store, userID, name string, res *importer.Result) (*store.ImportResult, error) {
	title := fmt.Sprintf("Import of %s (%s)", name, res.Format.Title())
	if res.Format == importer.Recur {
		return st.Restore(ctx, userID, title, res.Recur)
	}
	entries := make([]store.ImportEntry, len(res.Entries))
	for i, e := range res.Entries {
		entries[i] = store.ImportEntry{OccurredAt: e.OccurredAt, Text: e.Text, Source: e.Source}
	}
	return st.ImportCaptures(ctx, userID, title, entries)
}

// maxFormFiles bounds the files of one multipart upload.
const maxFormFiles = 1000

// readUpload reads the body of an import: the file itself, or a multipart
// form with one file, or several Markdown files, in fields named file. The
// body is copied to temporary files (readable by Recur alone, removed
// afterwards), and the importer reads them a piece at a time.
func readUpload(in *importInput, opts importer.Options) (string, *importer.Result, error) {
	body := &readErr{r: in.body}
	mediaType, params, _ := mime.ParseMediaType(in.ContentType)
	if mediaType != "multipart/form-data" {
		name := path.Base(in.Filename)
		if in.Filename == "" {
			name = "the upload"
			if mediaType == "text/markdown" {
				name = "entry.md"
			}
		}
		f, err := os.CreateTemp("", "recur-import-*")
		if err != nil {
			return "", nil, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		n, err := io.Copy(f, body)
		if err != nil {
			return "", nil, body.cause(err)
		} else if n == 0 {
			return "", nil, &importer.Error{Message: emptyUpload}
		}
		res, err := importer.ReadAt(name, f, n, opts)
		return name, res, err
	}

	dir, err := os.MkdirTemp("", "recur-import-*")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	var names []string
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			return "", nil, formError(body.cause(err))
		}
		if part.FormName() != "file" || part.FileName() == "" {
			continue
		}
		name := path.Base(part.FileName())
		if !fs.ValidPath(name) {
			return "", nil, &importer.Error{Source: name, Message: "This is not a file name; give the file a name and send it again."}
		}
		if slices.Contains(names, name) {
			return "", nil, &importer.Error{Source: name, Message: "The form holds two files of this name; give each its own."}
		}
		if len(names) == maxFormFiles {
			return "", nil, &importer.Error{Message: fmt.Sprintf("The form holds more than %d files; put them in a zip and upload that.", maxFormFiles)}
		}
		if err := saveFile(filepath.Join(dir, name), part); err != nil {
			return "", nil, formError(body.cause(err))
		}
		names = append(names, name)
	}
	switch len(names) {
	case 0:
		return "", nil, &importer.Error{Message: "The form holds no file: send it in a field named file."}
	case 1:
		f, err := os.Open(filepath.Join(dir, names[0]))
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return "", nil, err
		}
		res, err := importer.ReadAt(names[0], f, info.Size(), opts)
		return names[0], res, err
	}
	res, err := importer.ReadFS(os.DirFS(dir), opts)
	return fmt.Sprintf("%d files", len(names)), res, err
}

// saveFile copies one file of a form to name, readable by Recur alone.
func saveFile(name string, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// formError is the error of a form that cannot be read: a body over the
// limit stays itself (413), anything else is bad input.
func formError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err
	}
	return &importer.Error{Message: "The multipart form cannot be read: " + err.Error() + "."}
}

// readErr remembers the error reading the body ended with, which the
// multipart reader reports without wrapping.
type readErr struct {
	r   io.Reader
	err error
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// cause is the error reading the body ended with, if any, else err.
func (b *readErr) cause(err error) error {
	if b.err != nil {
		return b.err
	}
	return err
}

func (s *Server) reanalyse(ctx context.Context, _ *struct{}) (*batchOutput, error) {
	b, err := s.opts.Store.Reanalyse(ctx, current(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	return s.batchAnswer(b), nil
}

func (s *Server) export(ctx context.Context, _ *struct{}) (*exportOutput, error) {
	var buf bytes.Buffer
	if err := s.opts.Store.Export(ctx, current(ctx).User.ID, &buf); err != nil {
		return nil, err
	}
	name := "recur-export-" + s.opts.Store.Now().Format("2006-01-02") + ".json"
	return &exportOutput{ContentType: "application/json", ContentDisposition: `attachment; filename="` + name + `"`, Body: buf.Bytes()}, nil
}
