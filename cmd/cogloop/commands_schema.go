package main

import (
	"context"
	"io"
)

// runSchemaCommands runs schema, init, eval and script, so the command table
// in cli.go carries one line for them.
func runSchemaCommands(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	switch cmd {
	case "schema":
		return cmdSchema(args, stdout, stderr)
	case "init":
		return cmdInit(args, stdout, stderr)
	case "script":
		return cmdScript(args, stdout, stderr)
	}
	return cmdEval(ctx, args, stdout, stderr)
}
