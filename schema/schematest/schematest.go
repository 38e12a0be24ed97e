// Package schematest checks workflow files against cogloop's JSON Schema
// with a draft 2020-12 validator (santhosh-tekuri/jsonschema): what the
// schema tests, the CLI's init test and anyone checking an editor's view of
// the schema use. It lives apart from package schema so that the cogloop
// binary does not link the validator, whose package initialisation compiles
// every JSON Schema draft's meta-schemas (about 3 ms and 1.7 MB at the start
// of every command).
//
// # Imports
//
// It imports schema only.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/schema"
)

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) { return Compile(schema.Committed) })

// Compile compiles a schema document (schema.Generate's output) with a JSON
// Schema draft 2020-12 validator.
func Compile(doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schema.ID, v); err != nil {
		return nil, fmt.Errorf("add the schema: %w", err)
	}
	return c.Compile(schema.ID)
}

// ValidateYAML checks a workflow file's YAML against the committed schema.
func ValidateYAML(data []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("the workflow as JSON: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
