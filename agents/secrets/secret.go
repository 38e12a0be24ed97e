package secrets

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Redacted is what a [Secret] prints instead of its value.
const Redacted = "[redacted]"

// Secret holds a credential (an API key). However it is printed — fmt verbs
// including %#v, JSON, text marshalling, slog — it shows [Redacted]; only
// [Secret.Reveal] gives the value, for the one place that hands it to a client.
//
// The value sits behind a pointer, so even a struct that keeps a Secret in an
// unexported field prints an address, not the key, under %+v. The zero value is
// the empty secret.
type Secret struct {
	v    *string
	name string
}

// New wraps v. An empty v gives the zero (empty) Secret.
func New(v string) Secret {
	if v == "" {
		return Secret{}
	}
	return Secret{v: &v}
}

// NewNamed wraps v under a name that says where it comes from (the
// environment variable OPENAI_API_KEY, the key api_key): text that echoes it
// is scrubbed to [REDACTED:name], so a reader knows which key leaked.
func NewNamed(name, v string) Secret {
	s := New(v)
	if s.v != nil {
		s.name = name
	}
	return s
}

// Name is where the secret comes from ("" when unnamed).
func (s Secret) Name() string { return s.name }

// mark is what Scrub puts in place of the value.
func (s Secret) mark() string {
	if s.name == "" {
		return Redacted
	}
	return "[REDACTED:" + s.name + "]"
}

// Reveal returns the value. Call it only to hand the value to the client that
// sends it; never to print or store it.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.v == nil || *s.v == "" }

// String returns [Redacted], set or not; use [Secret.IsZero] to ask whether it is set.
func (s Secret) String() string { return Redacted }

// GoString returns the same as String, for %#v.
func (s Secret) GoString() string { return s.String() }

// Format prints the same as String for every verb.
func (s Secret) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(s.String())) }

// MarshalJSON encodes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// MarshalText encodes the redacted form (YAML, TOML and text encoders use it).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue makes slog print the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

var _ slog.LogValuer = Secret{}

// Scrub replaces every occurrence of the secrets' values in s with
// [REDACTED:name] ([Redacted] for an unnamed secret), and their near-copies
// too: the value in another letter case, with whitespace inside it (spaced
// out, split across lines), or a long piece of it (at least 16 bytes and half
// the value; see variants.go). It is for text that may echo a key back: a
// provider's error body, a URL with ?key=, a model's reply. Where the
// near-copies of two secrets overlap, the longer secret names the whole.
// Values shorter than 8 bytes are replaced only where they occur exactly.
// The work is linear in len(s) per secret.
func Scrub(s string, secrets ...Secret) string {
	sp := spans(s, secrets)
	if len(sp) == 0 { // most text: nothing to replace, nothing to copy
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, x := range sp {
		b.WriteString(s[at:x.start])
		b.WriteString(x.sec.mark())
		at = x.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// Spans returns the byte ranges [start, end) of s that [Scrub] replaces, in
// order and not overlapping: for a caller that lets text go in pieces (a
// streamed reply) and must not cut through a near-copy.
func Spans(s string, secrets ...Secret) [][2]int {
	sp := spans(s, secrets)
	out := make([][2]int, len(sp))
	for i, x := range sp {
		out[i] = [2]int{x.start, x.end}
	}
	return out
}

// minScrubLen is the shortest secret value [Set] scrubs from model
// replies: a shorter one ("x", a test placeholder) would rewrite ordinary
// words.
const minScrubLen = 8

// Set is the set of secrets a run scrubs from what models say: every API
// key its workflow's agents are configured with. Model replies and rendered
// prompts pass through [Set.Scrub] before they become outputs, so no key
// reaches events, traces, stdout, history or checkpoints. The zero value is
// empty; it is safe for concurrent use.
type Set struct {
	mu   sync.RWMutex
	list []Secret
}

// Add adds the non-empty secrets not yet in the set.
func (ss *Set) Add(secrets ...Secret) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, s := range secrets {
		v := s.Reveal()
		if len(v) < minScrubLen || slices.ContainsFunc(ss.list, func(h Secret) bool { return h.Reveal() == v }) {
			continue
		}
		ss.list = append(ss.list, s)
	}
}

// List returns a copy of the set's secrets, in the order added. It is safe
// on a nil *Set.
func (ss *Set) List() []Secret {
	if ss == nil {
		return nil
	}
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	return slices.Clone(ss.list)
}

// Scrub is [Scrub] with the set's secrets and extra. It is safe on a nil
// *Set.
func (ss *Set) Scrub(s string, extra ...Secret) string {
	if ss == nil {
		return Scrub(s, extra...)
	}
	ss.mu.RLock()
	list := ss.list // Add only appends: the elements seen here never change
	ss.mu.RUnlock()
	if len(extra) > 0 {
		list = append(slices.Clip(list), extra...)
	}
	return Scrub(s, list...)
}

// ScrubError returns err unchanged when its text holds none of the secrets.
// Otherwise it returns an error whose text is scrubbed. The new error does not
// unwrap to err (whose text still holds the key); errors.Is still sees err's
// chain, so errors.Is(e, context.Canceled) keeps working, but errors.As does
// not reach into it.
func ScrubError(err error, secrets ...Secret) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Scrub(msg, secrets...)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is lets errors.Is match sentinels in the hidden chain without exposing it.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }
