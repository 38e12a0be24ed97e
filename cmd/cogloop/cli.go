package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const usage = `usage:
  cogloop run WORKFLOW.yaml [INPUT] [flags]   run a workflow
  cogloop validate WORKFLOW.yaml              check a workflow without running it
  cogloop history --loop ID [--redis URL]     print a loop's persisted past_loops (--json; --clear --yes)
  cogloop presets [NAME] [--presets DIR]      list scoring presets: criteria, weights, thresholds (--json)

run flags:
  --json            print {"run_id", "output", "outputs"} as JSON on stdout
  --json-input      read INPUT as JSON
  --input-file F    read INPUT from file F
  --script F        answer every LLM call from the scripted replies in F
  --trace F         write every event as one JSON line to F
  --redis URL       keep loop histories and checkpoints in Redis (default $REDIS_URL, else in memory)
  --namespace N     key namespace in the store (default "default")
  --run-id ID       name the run and checkpoint every loop iteration under it
  --resume ID       continue run ID from its last completed iterations (needs --redis)
  --allow-config-change  resume even though the workflow file changed
  --checkpoint-ttl D  expire the run's checkpoint after D without a save (default 168h)
  --presets DIR     add (or override) scoring presets from DIR (also on validate)
`

// run is the whole CLI, testable in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "history":
		return cmdHistory(ctx, args[1:], stdout, stderr)
	case "presets":
		return cmdPresets(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "cogloop: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// parseInterspersed parses flags that may stand before or after the positional
// arguments, and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func usageError(stderr io.Writer, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	fmt.Fprintf(stderr, "cogloop: %s\n\n%s", strings.TrimSpace(err.Error()), usage)
	return exitUsage
}
