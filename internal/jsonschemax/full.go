//go:build !cogloop_core

package jsonschemax

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles doc under url (a name inside the compiler; nothing is
// ever fetched) with draft 2020-12 unless doc names another with $schema. It
// returns the compiled schema and doc as indented JSON.
func Compile(doc map[string]any, url string) (*jsonschema.Schema, []byte, error) {
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, v); err != nil {
		return nil, nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, nil, err
	}
	return s, raw, nil
}

func compileValidator(doc map[string]any, url string) (Validator, []byte, error) {
	s, raw, err := Compile(doc, url)
	if err != nil {
		return nil, nil, err
	}
	return s, raw, nil
}

func unmarshalJSON(r io.Reader) (any, error) { return jsonschema.UnmarshalJSON(r) }

// ErrorLocation is where the deepest cause of a compile or validation error
// is: the keys from the schema's (or instance's) root, nil when err is not
// one.
func ErrorLocation(err error) []string {
	var se *jsonschema.SchemaValidationError
	if errors.As(err, &se) {
		err = se.Err
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve.InstanceLocation
}
