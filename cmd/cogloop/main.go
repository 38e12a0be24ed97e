// Command cogloop runs and checks cogloop workflow files.
//
//	cogloop run WORKFLOW.yaml [INPUT|-] [--json] [--script F] [--trace F] [--strict] [-v|-q]
//	cogloop validate WORKFLOW.yaml [--strict]
//	cogloop runs | show RUN | report RUN -o FILE.html
//	cogloop eval WORKFLOW.yaml --dataset F.jsonl | schema | init [DIR]
//	cogloop history | presets | version | help [COMMAND]
//	cogloop worker | submit WORKFLOW.yaml [INPUT] | status [RUN...] | result RUN   (Redis queue, package queue)
//
// Exit codes: 0 ok, 1 failed run, 2 bad usage or invalid workflow, 130 after
// SIGINT (a second SIGINT exits at once), 143 after SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		first := <-sigs
		fmt.Fprintf(os.Stderr, "\ncogloop: %s: stopping (interrupt again to exit at once)\n", first)
		cancel(signalCause{first})
		<-sigs
		os.Exit(signalCode(first))
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
