package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/internal/english"
	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/journal"
	"github.com/recur-journal/recur/store"
)

// apiError is every error body the API sends: {message} for most statuses,
// and {message, errors} for 422, keyed by the field's own name.
type apiError struct {
	status  int
	headers http.Header
	Message string              `json:"message" doc:"What went wrong, in a sentence."`
	Errors  map[string][]string `json:"errors,omitempty" doc:"Only on 422: for each field that failed, the sentences saying why."`
}

func (e *apiError) Error() string             { return e.Message }
func (e *apiError) GetStatus() int            { return e.status }
func (e *apiError) GetHeaders() http.Header   { return e.headers }
func (e *apiError) ContentType(string) string { return "application/json" }

var (
	_ huma.StatusError       = (*apiError)(nil)
	_ huma.HeadersError      = (*apiError)(nil)
	_ huma.ContentTypeFilter = (*apiError)(nil)
)

// Huma builds every error body through these two hooks, so one place decides
// what each error looks like on the wire. Setting them is the documented way
// to customise Huma's errors; nothing else in the process uses Huma. Our
// lists are never null (an empty one is []), so the schemas say so too.
func init() {
	huma.DefaultArrayNullable = false
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return buildError(context.Background(), status, msg, errs...)
	}
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		if status == http.StatusBadRequest && ctx.Operation() != nil && ctx.Operation().OperationID == importOperation {
			// The one route whose body is a file, not JSON: Huma refuses it only when it is empty.
			return invalid("file", journal.EmptyUpload)
		}
		return buildError(ctx.Context(), status, msg, errs...)
	}
}

// statusMessages are the bodies of errors that carry no message of their own.
var statusMessages = map[int]string{
	http.StatusUnauthorized:          i18n.Key("Unauthenticated."),
	http.StatusForbidden:             i18n.Key("This action is unauthorized."),
	http.StatusNotFound:              i18n.Key("Not found."),
	http.StatusMethodNotAllowed:      i18n.Key("Method not allowed."),
	http.StatusNotAcceptable:         i18n.Key("Only application/json responses can be produced."),
	http.StatusRequestEntityTooLarge: i18n.Key("The request body is too large."),
	http.StatusTooManyRequests:       i18n.Key("Too many requests."),
	http.StatusInternalServerError:   i18n.Key("Server error."),
	http.StatusServiceUnavailable:    i18n.Key("Service unavailable."),
}

// codeStatuses maps each store error code to its HTTP status: the one place
// where that happens.
var codeStatuses = map[string]int{
	store.EINVALID:      http.StatusUnprocessableEntity,
	store.ECONFLICT:     http.StatusUnprocessableEntity,
	store.ENOTFOUND:     http.StatusNotFound,
	store.EUNAUTHORIZED: http.StatusUnauthorized,
	store.EFORBIDDEN:    http.StatusForbidden,
	store.ETOOMANY:      http.StatusTooManyRequests,
	store.EFULL:         http.StatusInsufficientStorage,
}

// retryAfter is the Retry-After of a 429 from the store (ETOOMANY), whose
// causes last a moment: a search under way, or the instance's searches.
const retryAfter = "1"

// buildError turns whatever Huma or a handler produced into an apiError.
func buildError(ctx context.Context, status int, msg string, errs ...error) *apiError {
	for _, err := range errs {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return &apiError{status: http.StatusRequestEntityTooLarge,
				Message: fmt.Sprintf(i18n.Key("The request body is too large; the limit is %d bytes."), tooLarge.Limit)}
		}
		var ae *apiError
		if errors.As(err, &ae) {
			return ae
		}
		var acc *account.Error
		if errors.As(err, &acc) {
			return fromAccount(acc)
		}
		var se *store.Error
		if errors.As(err, &se) {
			if code, ok := codeStatuses[se.Code]; ok {
				if code == http.StatusUnprocessableEntity {
					return validationError(map[string][]string{fieldOr(se.Field, "body"): {se.Message}})
				}
				e := &apiError{status: code, Message: se.Message}
				if code == http.StatusTooManyRequests {
					e.headers = http.Header{"Retry-After": {retryAfter}}
				}
				return e
			}
		}
	}

	switch {
	case status == http.StatusUnprocessableEntity:
		fields := map[string][]string{}
		for _, err := range errs {
			field, sentence := describe(err)
			fields[field] = append(fields[field], sentence)
		}
		return validationError(fields)
	case status == http.StatusBadRequest || status == http.StatusUnsupportedMediaType:
		// Huma answers 400 to a missing or unparsable body; to a client that
		// is bad input like any other, so it gets the same 422 shape.
		sentence := i18n.Key("The request body must be a JSON object.")
		if status == http.StatusUnsupportedMediaType {
			sentence = i18n.Key("The request body must be sent as application/json.")
		}
		return validationError(map[string][]string{"body": {sentence}})
	case status >= 500 && clientGone(ctx):
		return &apiError{status: statusClientClosed, Message: "Client closed request."}
	case status >= 500:
		logger(ctx).Error("request failed", "status", status, "error", errors.Join(errs...), "detail", msg)
		return &apiError{status: status, Message: statusMessages[http.StatusInternalServerError]}
	}
	if m, ok := statusMessages[status]; ok && (msg == "" || strings.ToLower(msg[:1]) == msg[:1]) {
		// Huma's own messages are lower-case fragments; ours are sentences.
		msg = m
	}
	return &apiError{status: status, Message: msg}
}

// fromAccount is the answer to a refusal of the account rules: its status,
// its sentence or, for 422, its fields, and Retry-After for 429.
func fromAccount(e *account.Error) *apiError {
	if e.Status == http.StatusUnprocessableEntity {
		return validationError(e.Fields)
	}
	return &apiError{status: e.Status, Message: e.Message, headers: e.GetHeaders()}
}

// validationError builds a 422 whose message is the first sentence, noting
// how many more there are.
func validationError(fields map[string][]string) *apiError {
	keys := make([]string, 0, len(fields))
	n := 0
	for k, v := range fields {
		keys = append(keys, k)
		n += len(v)
	}
	slices.Sort(keys)
	msg := i18n.Key("The given data was invalid.")
	if len(keys) > 0 {
		msg = fields[keys[0]][0]
		if n > 1 {
			msg += fmt.Sprintf(" (and %d more %s)", n-1, english.Plural(n-1, "error", "errors"))
		}
	}
	return &apiError{status: http.StatusUnprocessableEntity, Message: msg, Errors: fields}
}

// invalid returns a 422 error for one field.
func invalid(field, sentence string) *apiError {
	return validationError(map[string][]string{field: {sentence}})
}

func fieldOr(field, fallback string) string {
	if field == "" {
		return fallback
	}
	return field
}

var (
	reRequired = regexp.MustCompile(`^expected required property (\S+) to be present$`)
	reBound    = regexp.MustCompile(`^expected (length|number|array length) (>=|<=|>|<) (\S+)$`)
	reOneOf    = regexp.MustCompile(`^expected value to be one of "(.*)"$`)
)

// describe turns one of Huma's validation details into the field's own name
// ("limit", not "query.limit") and a sentence a person can act on.
func describe(err error) (field, sentence string) {
	var d *huma.ErrorDetail
	if !errors.As(err, &d) {
		return "body", err.Error()
	}
	field = d.Location
	for _, prefix := range []string{"body.", "query.", "path.", "header.", "cookie."} {
		field = strings.TrimPrefix(field, prefix)
	}
	msg := d.Message
	if m := reRequired.FindStringSubmatch(msg); m != nil {
		if field == "body" {
			field = m[1]
		} else {
			field += "." + m[1]
		}
		return field, fmt.Sprintf(i18n.Key("The %s field is required."), field)
	}
	if m := reBound.FindStringSubmatch(msg); m != nil {
		return field, boundSentence(field, m[1], m[2], m[3])
	}
	if m := reOneOf.FindStringSubmatch(msg); m != nil {
		return field, fmt.Sprintf(i18n.Key("The %s must be one of: %s."), field, m[1])
	}
	switch {
	case msg == "unexpected property":
		return field, fmt.Sprintf(i18n.Key("The %s field is not recognised."), field)
	case strings.Contains(msg, "integer"):
		return field, fmt.Sprintf(i18n.Key("The %s must be a whole number."), field)
	case msg == "expected number":
		return field, fmt.Sprintf(i18n.Key("The %s must be a number."), field)
	case msg == "expected string":
		return field, fmt.Sprintf(i18n.Key("The %s must be a string."), field)
	case msg == "expected boolean" || strings.Contains(msg, "invalid boolean"):
		return field, fmt.Sprintf(i18n.Key("The %s must be true or false."), field)
	case msg == "expected array":
		return field, fmt.Sprintf(i18n.Key("The %s must be a list."), field)
	case msg == "expected object":
		return field, fmt.Sprintf(i18n.Key("The %s must be an object."), field)
	case strings.Contains(msg, "date-time"):
		return field, fmt.Sprintf(i18n.Key("The %s must be a date and time such as 2026-11-22T08:21:03Z."), field)
	case strings.Contains(msg, "RFC 3339 date"), strings.Contains(msg, "invalid date"):
		return field, fmt.Sprintf(i18n.Key("The %s must be a date such as 2026-11-22."), field)
	case strings.HasPrefix(msg, "expected string to match pattern"):
		return field, fmt.Sprintf(i18n.Key("The %s is not in the form the API reference gives for it."), field)
	case strings.Contains(msg, "uuid"):
		return field, fmt.Sprintf(i18n.Key("The %s must be a UUID."), field)
	}
	return field, fmt.Sprintf("The %s is invalid: %s.", field, msg)
}

func boundSentence(field, kind, op, bound string) string {
	// A whole bound is said as a number, for a translation to write in
	// its language's form (see localizeErrors).
	var n any = bound
	if i, err := strconv.Atoi(bound); err == nil {
		n = i
	}
	switch kind {
	case "length":
		if op == ">=" {
			if bound == "1" {
				return fmt.Sprintf(i18n.Key("The %s field is required."), field)
			}
			return fmt.Sprintf(i18n.Key("The %s must be at least %d characters."), field, n)
		}
		return fmt.Sprintf(i18n.Key("The %s may not be longer than %d characters."), field, n)
	case "array length":
		if op == ">=" {
			return fmt.Sprintf(i18n.Key("The %s must have at least %d items."), field, n)
		}
		return fmt.Sprintf(i18n.Key("The %s may not have more than %d items."), field, n)
	}
	switch op {
	case ">=":
		return fmt.Sprintf(i18n.Key("The %s must be at least %d."), field, n)
	case "<=":
		return fmt.Sprintf(i18n.Key("The %s may not be greater than %d."), field, n)
	case ">":
		return fmt.Sprintf(i18n.Key("The %s must be greater than %d."), field, n)
	}
	return fmt.Sprintf(i18n.Key("The %s must be less than %d."), field, n)
}

type loggerKey struct{}

// logger returns the request's logger, which carries its request id.
func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
