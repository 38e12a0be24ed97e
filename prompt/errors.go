package prompt

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// ErrLimit is wrapped by every error that stops a render because a resource
// limit was reached (output size, loop iterations, range length, nesting, ...).
var ErrLimit = errors.New("template resource limit exceeded")

// SyntaxError is a template that does not parse. Line and Col are relative to the
// template source and 1-based; Col counts characters (runes), not bytes.
type SyntaxError struct {
	Name      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("template %q line %d col %d: %s", e.Name, e.Line, e.Col, e.Msg)
}

// Warning is something doubtful in a template that parses: Line and Col as in
// SyntaxError, Code a short stable code (e.g. "loop_target"), Msg the text.
type Warning struct {
	Line, Col int
	Code, Msg string
}

// RenderError is a template that failed while rendering. Line is the template line
// of the tag that failed (0 when unknown); Err is the cause.
type RenderError struct {
	Name string
	Line int
	Err  error
}

func (e *RenderError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("render template %q line %d: %s", e.Name, e.Line, cleanMessage(e.Err))
	}
	return fmt.Sprintf("render template %q: %s", e.Name, cleanMessage(e.Err))
}

func (e *RenderError) Unwrap() error { return e.Err }

// lineError marks the template line of a failing tag.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// renderError turns the error chain gonja builds (every level wraps with the
// node's text) into one RenderError with the innermost line and the root cause.
// It walks the chain one link at a time (unwrapOnce), so it compares links.
//
//nolint:errorlint // each link is looked at by itself, on purpose
func renderError(name string, err error) error {
	line := 0
	root := err
	for e := err; e != nil; {
		if le, ok := e.(*lineError); ok {
			line = le.line
		}
		next := unwrapOnce(e)
		if next == nil || next == ErrLimit {
			root = e
			break
		}
		e = next
	}
	// gonja flattens errors returned by functions, filters and methods into
	// text; a limit error is still recognisable by its message.
	if !errors.Is(root, ErrLimit) {
		msg := root.Error()
		if i := strings.LastIndex(msg, ErrLimit.Error()); i >= 0 {
			root = &limitError{msg: msg[i:]}
		}
	}
	return &RenderError{Name: name, Line: line, Err: root}
}

// limitError is a limit error recovered from a flattened message.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return ErrLimit }

// unwrapOnce is errors.Unwrap that also looks inside gonja values holding errors.
//
//nolint:errorlint // one link of the chain, by definition
func unwrapOnce(e error) error {
	if v, ok := e.(*exec.Value); ok {
		if inner, ok := v.Interface().(error); ok && inner != error(v) {
			return inner
		}
		return nil
	}
	return errors.Unwrap(e)
}

var (
	reInternalCall  = regexp.MustCompile("invalid call to function '\x00[^']*': ")
	reUndefinedCall = regexp.MustCompile(`^invalid call to method '(.*)' of : '.*' is not callable on $`)
	reUndefinedName = regexp.MustCompile(`^Unable to evaluate name "(.*)"$`)
	reUndefinedAttr = regexp.MustCompile(`(?s)^Unable to evaluate (.*): attribute '(.*)' not found$`)
	reUndefinedItem = regexp.MustCompile(`(?s)^unable to evaluate (.*): item '(.*)' not found$`)
)

// cleanMessage rewrites gonja's messages for undefined names into plain ones.
func cleanMessage(err error) string {
	msg := reInternalCall.ReplaceAllString(err.Error(), "")
	if m := reUndefinedCall.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("cannot call method %q of an undefined value", m[1])
	}
	if m := reUndefinedName.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("undefined variable %q", m[1])
	}
	if m := reUndefinedAttr.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("undefined attribute %q in %s", m[2], m[1])
	}
	if m := reUndefinedItem.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("undefined item %q in %s", m[2], m[1])
	}
	return msg
}

// panicError converts a recovered panic into an error carrying the stack.
func panicError(op, name string, r any) error {
	return fmt.Errorf("%s template %q: internal error: %v\n%s", op, name, r, debug.Stack())
}
