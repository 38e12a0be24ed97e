// Command cogloop runs and checks cogloop workflow files.
//
//	cogloop run WORKFLOW.yaml [INPUT] [--json] [--script F] [--trace F]
//	cogloop validate WORKFLOW.yaml
//
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or invalid workflow.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
