package examples

import "embed"

// FS holds the examples that cogloop init writes.
//
//go:embed quality/*.yaml society/*.yaml validator/*.yaml
var FS embed.FS
