package main

import (
	"context"
	"io"
)

// runSchemaCommands runs schema, init and eval, so the command table in
// cli.go carries one line for the three.
func runSchemaCommands(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	switch cmd {
	case "schema":
		return cmdSchema(args, stdout, stderr)
	case "init":
		return cmdInit(args, stdout, stderr)
	}
	return cmdEval(ctx, args, stdout, stderr)
}
