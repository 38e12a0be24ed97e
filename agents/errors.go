package agents

import "errors"

// Sentinel errors callers act on.
var (
	// ErrEmptyReply: a model answered with no text.
	ErrEmptyReply = errors.New("model returned an empty reply")
	// ErrStrict: a warning became an error because the run is strict
	// (--strict, strict: true); see [Run.Warn].
	ErrStrict = errors.New("warning treated as an error (strict mode)")
)
