package account

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/recur-journal/recur/internal/i18n"
)

// Error is a refusal by an account rule, meant for the person: its Message
// is a sentence, and Status the HTTP status it is answered with (422 bad
// input, under the Fields it is about; 429 a limit, with RetryAfter; 423 a
// session to confirm first; 400, 401, 403 or 503). Errors without a
// Status, from the store or elsewhere, are the caller's to map.
type Error struct {
	Status     int
	Message    string
	Fields     map[string][]string // on 422: for each field, the sentences saying why
	RetryAfter int                 // on 429: seconds until a try may succeed
}

func (e *Error) Error() string { return e.Message }

// GetHeaders gives the Retry-After of a 429, for whoever answers it over
// HTTP.
func (e *Error) GetHeaders() http.Header {
	if e.RetryAfter <= 0 {
		return nil
	}
	return http.Header{"Retry-After": {strconv.Itoa(e.RetryAfter)}}
}

// invalid is a 422 for one field.
func invalid(field, sentence string) *Error {
	return invalidFields(map[string][]string{field: {sentence}})
}

// invalidFields is a 422; its message is the first field's first sentence
// (the API adds how many more there are).
func invalidFields(fields map[string][]string) *Error {
	keys := slices.Sorted(maps.Keys(fields))
	return &Error{Status: http.StatusUnprocessableEntity, Message: fields[keys[0]][0], Fields: fields}
}

// tooMany is a 429 with its Retry-After.
func tooMany(msg string, secs int) *Error {
	return &Error{Status: http.StatusTooManyRequests, Message: msg, RetryAfter: secs}
}

// errConfirmationRequired is the 423 of an action that needs the session
// confirmed first (ConfirmWithPassword or ConfirmWithCode).
var errConfirmationRequired = &Error{Status: http.StatusLocked, Message: i18n.Key("Password confirmation required.")}
