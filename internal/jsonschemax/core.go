//go:build cogloop_core

package jsonschemax

import (
	"encoding/json"
	"errors"
	"io"
)

func compileValidator(map[string]any, string) (Validator, []byte, error) {
	return nil, nil, ErrNotInThisBuild
}

// unmarshalJSON reads one JSON value with exact numbers, as the validator's
// decoder does.
func unmarshalJSON(r io.Reader) (any, error) {
	d := json.NewDecoder(r)
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// ErrorLocation has no validator's errors to read in a core build.
func ErrorLocation(error) []string { return nil }
