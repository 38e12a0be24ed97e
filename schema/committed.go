package schema

import (
	_ "embed" // the committed schema
)

// Committed is schema/workflow.schema.json as committed (for the built-in types).
//
//go:embed workflow.schema.json
var Committed []byte
