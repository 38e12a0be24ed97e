package main

// Help of the scale-out commands (package queue, on asynq).
const (
	workerHelp = `usage: cogloop worker [flags]

Takes runs from the Redis queues and runs them (package queue, on asynq), each
with checkpoints per loop pass in the same Redis; a run whose worker died is
re-delivered by asynq about 60-120 s later and resumes from its last completed
pass (once the dead worker's run lease has expired: a run live in another
process is never run twice at once). Prints "cogloop worker: ready ..." on stderr once it takes runs, and a
line per run that ends. SIGTERM or SIGINT drains: no new runs, each running
run stops after its current pass and goes back to the queue; exit 143/130.

flags:
  --redis URL            the queues' Redis (default $REDIS_URL)
  --concurrency N        runs at once (default 10)
  --queues Q1,Q2         queues to take runs from, optionally NAME:PRIORITY (default cogloop)
  --script F             answer every LLM call from the scripted replies in F (use cycle: for many runs)
  --presets DIR          add (or override) scoring presets from DIR
  --shutdown-timeout D   how long a drain waits for running passes (default 30s)
  --poll-interval D      how often an idle worker looks for runs and due retries (default 1s)
  -q                     no line per run
  --strict               refuse to start when Redis keeps nothing on disk (neither AOF nor
                         RDB: a server restart loses the queue); without it, a warning
`
	submitHelp = `usage: cogloop submit WORKFLOW.yaml [INPUT] [flags]

Submits a run to the queue; a worker runs it. Prints the run id on stdout (one
line per run with --dataset). The run id is asynq's task id: a run id that was
submitted already is refused (exit 1).

flags:
  --redis URL          the queues' Redis (default $REDIS_URL)
  --queue Q            the queue (default cogloop)
  --run-id ID          name the run (with --dataset: runs are ID-1, ID-2, ... by line number)
  --dataset F.jsonl    one run per line; each line is the run's input as JSON
  --json-input         read INPUT as JSON
  --namespace N        key namespace in the store (default "default")
  --shared             send only the workflow's path and digest (every worker reads the same file)
  --strict             every warning is an error (a Redis that keeps nothing on disk too)
  --wait               wait for the run and print its result as 'cogloop result' does
  --max-retry N        retries of transient failures (default 5)
  --retention D        keep the finished run's result for D (default 24h)
  --timeout D          bound one attempt of the run (default 1h)
  --checkpoint-ttl D   expire the run's checkpoint after D without a save
`
	statusHelp = `usage: cogloop status [RUN...] [flags]

Without RUN: the runs of every queue counted by state, and the live workers;
runs submitted from here (the ledger beside the run records) that the queue no
longer knows, within their retention, are listed as vanished (exit 1): a Redis
restarted without persistence lost them.
With RUN: queued, running on which worker at which pass, retrying after which
error, done, or archived (failed for good) with its error.

flags:
  --redis URL   the queues' Redis (default $REDIS_URL)
  --json        print JSON
`
	resultHelp = `usage: cogloop result RUN [flags]

Prints the run's result: the JSON document 'cogloop run --json' prints. Exit 0
when the run is ok, 1 when it failed or has no result yet.

flags:
  --redis URL   the queues' Redis (default $REDIS_URL)
  --wait        wait until the run ended
`
)
