package cognition

import (
	"errors"
	"fmt"
)

// ErrMatchTimeout is wrapped by the [MatchError] of a regex match that ran out of
// its MatchTimeout (catastrophic backtracking on model output, usually).
var ErrMatchTimeout = errors.New("regex match timed out")

// PatternError reports a regex that does not compile. Reason is regexp2's
// explanation; the caller adds the file position.
type PatternError struct {
	Pattern string // the expression as written in the configuration
	Reason  string // why it does not compile
	Err     error  // regexp2's error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("invalid pattern %q: %s", e.Pattern, e.Reason)
}

func (e *PatternError) Unwrap() error { return e.Err }

// MatchError reports a regex match that failed at run time: a timeout
// ([ErrMatchTimeout]) or an internal failure of the regex engine. It quotes at
// most [modeltext.ExcerptLen] characters of the scanned text, never all of it.
type MatchError struct {
	Pattern string // the expression
	Excerpt string // the start of the scanned text, cut to modeltext.ExcerptLen characters
	Len     int    // length of the scanned text in bytes
	Err     error  // ErrMatchTimeout or the engine's failure
}

func (e *MatchError) Error() string {
	return fmt.Sprintf("pattern %q on text %q (%d bytes): %v", e.Pattern, e.Excerpt, e.Len, e.Err)
}

func (e *MatchError) Unwrap() error { return e.Err }

// FieldError places a configuration problem at a field, spelled as the YAML path
// below the loop node ("score_extraction_config.strategies[1].patterns[0]",
// "cognitive_extraction.extract_patterns.insights[2]"), so the caller can map it
// to a file position. [NewScorer] and [NewExtractor] return every problem joined
// with [errors.Join]; each joined error is a *FieldError.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }
