package agents

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
	v *string
}

// NewSecret wraps v. An empty v gives the zero (empty) Secret.
func NewSecret(v string) Secret {
	if v == "" {
		return Secret{}
	}
	return Secret{v: &v}
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

// Scrub replaces every occurrence of the secrets' values in s with [Redacted].
// It is for text that may echo a key back (a provider's error body, a URL with
// ?key=).
func Scrub(s string, secrets ...Secret) string {
	for _, sec := range secrets {
		if v := sec.Reveal(); v != "" && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
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
