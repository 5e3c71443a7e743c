package store

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Error codes. The HTTP layer maps each to one status, in one place.
const (
	ECONFLICT     = "conflict"     // the record clashes with one that exists
	EINTERNAL     = "internal"     // a bug or a failing disk: logged, never shown
	EINVALID      = "invalid"      // the input breaks a rule; Field names which input
	ENOTFOUND     = "not_found"    // no such record, or not the caller's
	EUNAUTHORIZED = "unauthorized" // no valid credentials
	EFORBIDDEN    = "forbidden"    // valid credentials, not allowed
	ETOOMANY      = "too_many"     // too much under way at once: try again shortly
	EFULL         = "full"         // the disk is full: nothing was saved
)

// Error is an application error with a code, a message fit for the person who
// caused it and, for EINVALID, the name of the offending field.
type Error struct {
	Code    string
	Field   string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID error about one field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns an ENOTFOUND error naming what was looked for.
func NotFound(what string) *Error {
	return &Error{Code: ENOTFOUND, Message: what + " not found."}
}

// ErrorCode returns the code of err, EINTERNAL when it carries none, or "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the message of an *Error in err, or a generic one.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Server error."
}

// ErrDiskFull is the error of a write that failed for lack of space: on
// the disk, or within the database's size limit.
var ErrDiskFull = &Error{Code: EFULL, Message: "The server's disk is full, so nothing was saved. Try again once its owner has freed some space."}

// translate turns SQLite constraint failures and a full disk into coded errors; every write
// passes its error through here so callers never see driver errors for
// conditions a user can cause.
func translate(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		// "UNIQUE constraint failed: users.email" names the column.
		msg := se.Error()
		field := ""
		if i := strings.LastIndex(msg, "."); i >= 0 {
			field = strings.TrimRight(msg[i+1:], ") ")
		}
		return &Error{Code: ECONFLICT, Field: field, Message: "That " + field + " is already taken."}
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return &Error{Code: ENOTFOUND, Message: "A record this refers to no longer exists."}
	}
	if se.Code()&0xff == sqlite3.SQLITE_FULL {
		return fmt.Errorf("%w (%w)", ErrDiskFull, err)
	}
	return err
}
