package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/cogloop/cogloop/memory/redis"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the run failed
	exitUsage   = 2 // bad usage or an invalid workflow
	// exitWaiting (3, human.go): the run waits for an answer or paused.
	exitSIGINT  = 130
	exitSIGTERM = 143
)

const usage = `usage: cogloop <command> [arguments]

commands:
  run WORKFLOW.yaml [INPUT|-]   run a workflow
  validate WORKFLOW.yaml        check a workflow without running it
  history --loop ID             print a loop's persisted past_loops
  presets [NAME]                list scoring presets
  runs                          list the recorded runs
  show RUN                      print a recorded run: summary and passes
  report RUN -o FILE.html       write a recorded run as an HTML report
  fork RUN --pass K             a new run from pass K of RUN (changed prompts allowed)
  worker                        run queued runs (Redis, asynq)
  submit WORKFLOW.yaml [INPUT]  queue a run (--dataset F.jsonl: one per line)
  status [RUN...]               where queued runs are
  result RUN                    a queued run's result (--wait)
  answer RUN --approve|...      answer the question a waiting run asks, and continue it
  pause RUN                     ask a run to stop at its next pass boundary
  schema                        print the JSON Schema of workflow files
  init [DIR]                    write a runnable starter workflow
  eval WORKFLOW --dataset F     run a workflow over a JSONL dataset and score it
  script RUN                    turn a recorded run into a --script file
  mcp tools WORKFLOW            list the tools of the workflow's MCP servers
  mcp serve WORKFLOW...         offer workflows as MCP tools (stdio, --http)
  serve                         a web UI and JSON API to watch, start and compare runs
  version                       print the version
  help [COMMAND]                print a command's help

Run 'cogloop help <command>' (or 'cogloop <command> --help') for its flags.
Exit codes: 0 ok, 1 failed run, 2 bad usage or invalid workflow, 3 the run
waits for an answer or paused, 130 after SIGINT (a second Ctrl-C exits at
once), 143 after SIGTERM.
`

// helps are each command's help text.
var helps = map[string]string{
	"schema": schemaHelp, "init": initHelp, "eval": evalHelp, "script": scriptHelp, // schema.go, init.go, evalhelp.go, scriptcmd.go
	"mcp":    mcpHelp + "\n" + mcpServeHelp,  // mcp.go, mcpserve.go
	"answer": answerHelp, "pause": pauseHelp, // human.go
	"serve": serveHelp, // serve.go
	"run": `usage: cogloop run WORKFLOW.yaml [INPUT|-] [flags]

Runs the workflow on INPUT. INPUT '-', or no INPUT while stdin is not a
terminal, reads the input from stdin (at most 1 MiB, as --input-file). The
answer goes to stdout; a run summary (per loop: passes, scores, why it
stopped, agent errors, tokens, cost) and warnings go to stderr.
Exit codes: 0 ok, 1 failed (the first error is printed), 2 bad usage or
invalid workflow, 3 the run waits for an answer (a human step: the question,
the run id and the 'cogloop answer' command are printed) or paused, 130
after SIGINT, 143 after SIGTERM.

flags (before or after the arguments):
  --json            print {"run_id", "status", "errors", "warnings", "output", "outputs"} on stdout
  --json-input      read INPUT as JSON
  --input-file F    read INPUT from file F (at most 1 MiB)
  --script F        answer every LLM call from the scripted replies in F (at most 4 MiB;
                    every agent id in F must be defined by the workflow)
  --replay RUN      answer every LLM call from recorded run RUN, request by request; the
                    first call whose request (model, prompt, messages, tools) differs from
                    the recorded one ends the run with a diff of what changed (secrets
                    scrubbed and wall-clock timestamps left out on both sides); agents of
                    type scripted answer from their own responses (a warning says so)
  --trace F         write every event as one JSON line to F as it happens ('-': stderr)
  --strict          every warning (load or run time) is an error
  -v                print each agent's reply on stderr, prefixed with its path: token by token
                    where the provider streams (and agent.delta events in --trace), else at its end
  -q                no run summary
  --redis URL       keep loop histories and checkpoints in Redis (default $REDIS_URL; else
                    checkpoints are files in <record dir>/checkpoints, histories in memory)
  --namespace N     key namespace in the store (default "default")
  --run-id ID       name the run and checkpoint every loop iteration under it; a run id
                    live in another process is refused (its lease names the holder), and
                    so is the id of an earlier run (its record or checkpoint exists)
  --replace-run     start the earlier run named by --run-id over, replacing its record
                    and checkpoint
  --resume ID       continue run ID from its last completed iterations (in Redis or the
                    checkpoint files)
  --allow-config-change  resume even though the workflow file changed
  --checkpoint-ttl D  expire the run's checkpoint after D without a save (default 168h)
  --keep-finished D   keep the checkpoint of a run that ended ok for D, then let it
                    expire (default 24h; long enough to fork from it)
  --presets DIR     add (or override) scoring presets from DIR
  --record-dir DIR  write the run record (every event, as --trace) to DIR/<run id>.jsonl
                    (default $COGLOOP_RECORD_DIR, else .cogloop/runs; oldest records are
                    pruned past 200 MB in all, $COGLOOP_RECORD_MAX_BYTES to change it)
  --no-record       write no run record
  --report F.html   write the run's HTML report to F.html
  --ask             ask human steps' questions on this terminal and wait (the default on a
                    terminal without --redis); with --redis the run still waits durably, so
                    'cogloop answer' from elsewhere can answer it too

OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
or OTEL_TRACES_EXPORTER=otlp) set, the run is exported as spans over OTLP HTTP/protobuf
and flushed before exit; COGLOOP_OTEL_CONTENT=1 adds prompts and replies to the spans.
`,
	"validate": `usage: cogloop validate WORKFLOW.yaml [flags]

Loads the workflow and reports every problem with its file:line:col; warnings
go to stderr. It also warns about the environment: an API key the agents'
models need that is not set ("OPENAI_API_KEY is not set; agents writer,
critic will fail"; a warning under --strict too). Exit codes: 0 valid, 2 invalid.

flags:
  --strict          every warning is an error
  --presets DIR     add (or override) scoring presets from DIR
  --connect         also start (or contact) the MCP servers (mcp_servers:) and
                    check the server tools the agents name; without it
                    validate stays offline
`,
	"history": `usage: cogloop history --workflow ID --loop ID [flags]
       cogloop history --key KEY [flags]
       cogloop history --migrate --workflow ID --loop ID [flags]

Prints a loop's persisted past_loops (persist_across_runs). A loop's history
is kept per workflow: --workflow is the orchestrator id, --loop the loop id. A
loop with history_key: KEY keeps it under KEY instead (--key KEY).

flags:
  --workflow ID     the workflow (orchestrator) id
  --loop ID         the loop id
  --key KEY         the history_key of the loop; histories written before
                    histories were kept per workflow are at --key LOOP_ID
  --redis URL       the store (default $REDIS_URL)
  --namespace N     key namespace (default "default")
  --limit N         the last N entries only
  --json            print the entries as JSON
  --clear --yes     delete the loop's history
  --migrate         copy the loop's history from before histories were kept
                    per workflow (--key LOOP_ID) into the workflow's; entries
                    already there are not doubled; the old history stays for
                    other workflows to migrate (then: --key LOOP_ID --clear --yes)
  --import-orka     copy OrKa's history of the loop (key past_loops:LOOP_ID in
                    the same Redis) into cogloop's, for good
`,
	"presets": `usage: cogloop presets [NAME] [flags]

Lists the boolean-scoring presets; with NAME (a context or alias, a level, or
context/level) prints its criteria, weights and thresholds.

flags:
  --presets DIR     add (or override) presets from DIR
  --json            print as JSON
`,
	"runs":   helpRuns,
	"show":   helpShow,
	"report": helpReport,
	"fork":   helpFork, // fork.go
	"version": `usage: cogloop version

Prints the module version, the VCS revision it was built from and the Go version.
`,
	"worker": workerHelp,
	"submit": submitHelp,
	"status": statusHelp,
	"result": resultHelp,
	"help": `usage: cogloop help [COMMAND]

Prints the help of COMMAND, or the list of commands.
`,
}

// run is the whole CLI, testable in-process. A ctx canceled with a
// [signalCause] makes it exit with that signal's code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// go-redis logs dial failures itself; every command that reaches Redis
	// (the store, the queue) reports them in its own error, once.
	redis.SetLogger(nil)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd := args[0]
	switch cmd {
	case "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "--version", "-version", "-V":
		cmd = "version" // as the version command
		args = append([]string{cmd}, args[1:]...)
	}
	switch cmd {
	case "help":
		return cmdHelp(args[1:], stdout, stderr)
	}
	if _, ok := helps[cmd]; !ok {
		fmt.Fprintf(stderr, "cogloop: unknown command %q\nrun 'cogloop help'\n", cmd)
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		fmt.Fprint(stdout, helps[cmd])
		return exitOK
	}
	if c, ok := commands[cmd]; ok {
		return c(ctx, args[1:], stdout, stderr)
	}
	return exitUsage
}

// command runs one cogloop command on its arguments (after the command's
// name) and returns the exit code.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// commands are the commands run dispatches to, by name (help is run's own).
var commands = map[string]command{
	"run":      cmdRun,
	"validate": cmdValidate,
	"history":  cmdHistory,
	"presets":  withoutContext(cmdPresets),
	"runs":     cmdRuns,
	"show":     cmdShow,
	"report":   withoutContext(cmdReport),
	"fork":     cmdFork,
	"worker":   cmdWorker,
	"submit":   cmdSubmit,
	"status":   cmdStatus,
	"result":   cmdResult,
	"schema":   withoutContext(cmdSchema),
	"init":     withoutContext(cmdInit),
	"eval":     cmdEval,
	"script":   withoutContext(cmdScript),
	"mcp":      cmdMCP,
	"serve":    cmdServe,
	"answer":   cmdAnswer,
	"pause":    cmdPause,
	"version":  withoutContext(cmdVersion),
}

// withoutContext is a command that needs no context as a command.
func withoutContext(f func(args []string, stdout, stderr io.Writer) int) command {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageError(stderr, "version", fmt.Errorf("version takes no arguments, got %q", args[0]))
	}
	fmt.Fprintln(stdout, versionText())
	return exitOK
}

func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return exitOK
	case len(args) > 1:
		return usageError(stderr, "help", fmt.Errorf("help takes one command, got %d arguments", len(args)))
	}
	h, ok := helps[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "cogloop help: unknown command %q\nrun 'cogloop help'\n", args[0])
		return exitUsage
	}
	fmt.Fprint(stdout, h)
	return exitOK
}

// wantsHelp reports a -h/--help among a command's arguments (before any "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// versionText is the module version, VCS revision and Go version from the
// build info.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "cogloop (no build info)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	rev, modified := "unknown", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		rev += " (modified)"
	}
	return fmt.Sprintf("cogloop %s\nrevision %s\n%s", version, rev, info.GoVersion)
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

// parseOneArg parses args (flags anywhere) and returns their one positional
// argument; any other count is an error saying the command takes want.
func parseOneArg(fs *flag.FlagSet, args []string, want string) (string, error) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return "", err
	case len(pos) != 1:
		return "", fmt.Errorf("%s takes %s", fs.Name(), want)
	}
	return pos[0], nil
}

// parseWorkflowInput parses args (flags anywhere) and returns the
// positional arguments: a workflow file and, optionally, one input.
func parseWorkflowInput(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return nil, err
	case len(pos) == 0:
		return nil, fmt.Errorf("%s needs a workflow file", fs.Name())
	case len(pos) > 2:
		return nil, fmt.Errorf("%s takes a workflow file and one input, got %d arguments (quote the input)", fs.Name(), len(pos))
	}
	return pos, nil
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// usageError prints one line and where to find the command's help.
func usageError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "cogloop %s: %s\nrun 'cogloop %s --help'\n", cmd, strings.TrimSpace(err.Error()), cmd)
	return exitUsage
}

// signalCause is the cancellation cause main gives the run's context when a
// signal arrives.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "interrupted by " + s.sig.String() }

// signalExit is the exit code after the signal that canceled ctx, or 0.
func signalExit(ctx context.Context) int {
	var sc signalCause
	if !errors.As(context.Cause(ctx), &sc) {
		return 0
	}
	return signalCode(sc.sig)
}

func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return exitSIGTERM
	}
	return exitSIGINT
}
