// Command cogloop runs and checks cogloop workflow files.
//
//	cogloop run WORKFLOW.yaml [INPUT|-] [--json] [--script F] [--trace F] [--strict] [-v|-q]
//	cogloop validate WORKFLOW.yaml [--strict] [--connect]
//	cogloop mcp tools WORKFLOW.yaml   (the tools of its MCP servers)
//	cogloop mcp serve WORKFLOW.yaml...   (workflows as MCP tools; stdio or --http)
//	cogloop runs | show RUN | report RUN -o FILE.html | fork RUN --pass K [WORKFLOW.yaml]
//	cogloop eval WORKFLOW.yaml [B.yaml] --dataset F.jsonl | script RUN | schema | init [DIR]
//	cogloop history | presets | version | help [COMMAND]
//	cogloop worker | submit WORKFLOW.yaml [INPUT] | status [RUN...] | result RUN   (Redis queue, package queue)
//
//	cogloop answer RUN --approve|--reject|--score N|... | pause RUN   (human steps, pauses)
//	cogloop serve [--addr A] [--workflows DIR] [--redis URL] [--token T]   (web UI and JSON API, package serve)
//
// Exit codes: 0 ok, 1 failed run, 2 bad usage or invalid workflow, 3 the run
// waits for an answer or paused, 130 after SIGINT (a second SIGINT exits at
// once), 143 after SIGTERM.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/lease, agents/load,
// agents/retry, agents/scripted, agents/secrets, agents/spend, app/otlp,
// app/queue, app/records, app/report, app/serve, cogloop, cognition,
// cognition/metrics, examples, internal/perf, internal/plainjson, mcp, memory,
// memory/file, memory/redis, schema, scoring, types/human and types/llm.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/cogloop/cogloop/internal/perf"
	"github.com/cogloop/cogloop/mcp"
)

// shortCommands end within milliseconds of starting (they read a file or a
// few records, print and exit): run, eval and worker are not among them.
var shortCommands = map[string]bool{
	"validate": true, "schema": true, "init": true, "version": true, "help": true, "presets": true,
	"runs": true, "show": true, "report": true, "history": true, "status": true, "result": true, "submit": true,
}

// shortMemoryLimit is the heap at which a short command's garbage collector
// (otherwise off) starts to run.
const shortMemoryLimit = 512 << 20

// gcOffFor reports whether the command in args runs without the garbage
// collector (up to shortMemoryLimit): a short command, and the user has set
// neither GOGC nor GOMEMLIMIT (their setting wins).
func gcOffFor(args []string, getenv func(string) string) bool {
	if len(args) == 0 || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	return shortCommands[args[0]]
}

func main() {
	if gcOffFor(os.Args[1:], os.Getenv) {
		// A short command allocates a few MB and exits: collecting that
		// garbage was 35-40 % of `cogloop validate`'s instructions. The
		// memory limit still brings the collector in should one grow large.
		debug.SetMemoryLimit(shortMemoryLimit)
		debug.SetGCPercent(-1)
	}
	if u := perf.Unknown(); len(u) > 0 {
		fmt.Fprintf(os.Stderr, "cogloop: warning: %s names no switch: %s (the switches: %s, or all)\n",
			perf.EnvVar, strings.Join(u, ", "), strings.Join(perf.Names, ", "))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		first := <-sigs
		fmt.Fprintf(os.Stderr, "\ncogloop: %s: stopping (interrupt again to exit at once)\n", first)
		cancel(signalCause{first})
		<-sigs
		mcp.CloseShared()
		os.Exit(signalCode(first))
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	mcp.CloseShared() // share: process servers end with the process
	os.Exit(code)
}
