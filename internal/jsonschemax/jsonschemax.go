// Package jsonschemax compiles the JSON Schemas a workflow declares (tool
// parameters, output_schema) with santhosh-tekuri/jsonschema, and says where
// in the schema a compile error is, for the load error's file:line:col.
//
// A core build (-tags cogloop_core, README "Binary size") leaves the
// validator out: [CompileValidator] then refuses with [ErrNotInThisBuild],
// and [Compile] does not exist (the LLM and MCP types that call it are not in
// a core build either).
//
// # Imports
//
// It imports no project package.
package jsonschemax

import (
	"errors"
	"io"
)

// ErrNotInThisBuild is CompileValidator's error in a core build.
var ErrNotInThisBuild = errors.New("JSON Schema validation is not in this build (built with -tags cogloop_core): build without the tag")

// Validator validates a decoded JSON value (from [UnmarshalJSON]).
type Validator interface {
	Validate(v any) error
}

// CompileValidator is [Compile] for callers that only validate; a core
// build returns [ErrNotInThisBuild].
func CompileValidator(doc map[string]any, url string) (Validator, []byte, error) {
	return compileValidator(doc, url)
}

// UnmarshalJSON decodes one JSON value as the validator reads it (numbers
// kept exact).
func UnmarshalJSON(r io.Reader) (any, error) { return unmarshalJSON(r) }
