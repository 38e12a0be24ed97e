package schema

import (
	"bytes"
	_ "embed" // the committed schema
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// Committed is schema/workflow.schema.json as committed (for the built-in types).
//
//go:embed workflow.schema.json
var Committed []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) { return Compile(Committed) })

// Compile compiles a schema document (Generate's output) with a JSON Schema
// draft 2020-12 validator.
func Compile(doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(ID, v); err != nil {
		return nil, fmt.Errorf("add the schema: %w", err)
	}
	return c.Compile(ID)
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
