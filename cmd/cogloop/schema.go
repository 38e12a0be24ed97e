package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/schema"
)

const schemaHelp = `usage: cogloop schema [--out FILE]

Prints the JSON Schema (draft 2020-12) of workflow files, generated from the
keys the loader reads. Editors with the YAML language server complete and
check a workflow whose first line is
  # yaml-language-server: $schema=` + schema.ID + `

flags:
  --out FILE        write the schema to FILE instead of stdout
`

func cmdSchema(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("schema", stderr)
	var out string
	fs.StringVar(&out, "out", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "schema", err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "schema", errors.New("schema takes no arguments"))
	}
	doc, err := schema.Generate(cogloop.NewRegistry())
	if err != nil {
		fmt.Fprintf(stderr, "cogloop schema: %v\n", err)
		return exitFailure
	}
	if out == "" {
		_, err = stdout.Write(doc)
	} else {
		err = os.WriteFile(out, doc, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cogloop schema: %v\n", err)
		return exitFailure
	}
	return exitOK
}
