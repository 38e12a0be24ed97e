package scoring

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, wrapped by the errors of this package so callers can place
// them (a loader reports an unknown context at the context key, an unknown
// preset at the preset key, a bad custom weight at that weight's key).
var (
	// ErrUnknownContext: no context of the catalog has that name or alias.
	ErrUnknownContext = errors.New("unknown scoring context")
	// ErrUnknownPreset: the context has no preset (level) of that name.
	ErrUnknownPreset = errors.New("unknown scoring preset")
	// ErrUnknownCriterion: a custom weight names no criterion of the preset.
	ErrUnknownCriterion = errors.New("no such criterion")
	// ErrBadWeight: a weight is negative or not a finite number.
	ErrBadWeight = errors.New("bad weight")
)

// LookupError is a context or preset name the catalog does not know. It
// unwraps to [ErrUnknownContext] or [ErrUnknownPreset].
type LookupError struct {
	Err     error    // ErrUnknownContext or ErrUnknownPreset
	Name    string   // the name asked for
	Context string   // for ErrUnknownPreset: the context searched
	Known   []string // the names that exist
}

func (e *LookupError) Error() string {
	if errors.Is(e.Err, ErrUnknownPreset) {
		return fmt.Sprintf("unknown scoring preset %q for context %s (known: %s)", e.Name, e.Context, strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("unknown scoring context %q (known: %s)", e.Name, strings.Join(e.Known, ", "))
}

func (e *LookupError) Unwrap() error { return e.Err }

// WeightError is a custom weight that cannot be used. Key is the weight's key
// as given; Err wraps [ErrUnknownCriterion] or [ErrBadWeight].
type WeightError struct {
	Key string
	Err error
}

func (e *WeightError) Error() string { return fmt.Sprintf("custom weight %q: %v", e.Key, e.Err) }

func (e *WeightError) Unwrap() error { return e.Err }
