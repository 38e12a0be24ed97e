// Package queue runs cogloop workflows on many machines from one Redis queue,
// on [asynq] (a Redis-backed task queue): a run is a task, a worker is an
// asynq server that runs them. It is the only package that imports asynq.
//
// # Tasks and queues
//
// A run is one asynq task of type "cogloop:run" whose task id is
// the run id, so a run id can be submitted once: a second [Enqueue] of the
// same id fails with [ErrDuplicate]. The default queue is [DefaultQueue]
// ("cogloop"). asynq's own tools show cogloop's queues and runs:
//
//	asynq queue ls                       # lists "cogloop"
//	asynq task ls --queue cogloop --state active
//	asynqmon --redis-url redis://...     # web UI: queue "cogloop", type "cogloop:run"
//
// The payload (JSON) carries the workflow file's bytes and
// SHA-256 digest, or only a path all workers share with its digest, the
// input, the run id, the key namespace and the run options (strict,
// checkpoint TTL). A workflow with an API key written in it is refused
// unless it travels by path: secrets never reach Redis. A workflow built
// in Go ([EnqueueWorkflow] of a cogloop.New workflow) travels as its id
// only: the worker builds it with the builder its [Options].Workflows
// holds under that id.
//
// # Workers
//
// [NewWorker] builds a worker with a registry of agent types (custom ones
// too), the model source (e.g. a scripted one) and a store per namespace
// (default: the Redis store of memory/redis on the worker's Redis).
// [Worker.Run] processes runs until its context ends. Every run checkpoints
// each loop pass in that store; a run whose run id already has a checkpoint
// is resumed from it, exactly as `cogloop run --resume` does (the
// workflow's digest must match). While a run goes, its [Record] (worker,
// attempt, the pass of each loop, the last 100 events) is written to
// the task's result field in Redis at every loop pass; when it ends, the
// record holds the run's JSON document (the one `cogloop run --json`
// prints) and its top-level loops' typed results, which [Client.Result]
// gives back as a *cogloop.Result. asynq keeps a completed task, and so its record, for the
// retention time given at submit ([Retention], default 24h).
//
// # Failures and recovery
//
// A run that finished (ok or failed) is never run again. A failed run, a
// fatal error, an invalid workflow or a changed workflow are permanent: the
// task is archived with the error (asynq.SkipRetry). Failures around the
// run (the store or the shared workflow file cannot be read, the task timed
// out) are retried with exponential backoff from 1 s up to 5 min, at most
// [DefaultMaxRetry] times unless [MaxRetry] says otherwise.
//
// A worker that dies (kill -9, a lost machine) stops extending its asynq
// lease of 30 s; asynq's recoverer, which every worker runs when it starts
// and then once a minute, re-delivers a task whose lease expired more than
// 30 s ago. So a dead worker's runs resume elsewhere 60 to 120 s after the
// death (sooner when a worker starts after the first 60 s); asynq does not
// let these times be configured. The run resumes from its last completed
// pass: only the pass in flight calls its models again.
//
// When [Worker.Run]'s context ends (SIGTERM in the CLI) the worker drains:
// it takes no new task, each running run stops after its current loop pass
// (checkpointed) and goes back to the queue without counting as a failure,
// and runs still going after the shutdown timeout are handed back by asynq
// as they are (they resume from their last checkpoint).
//
// # Imports
//
// It imports agents, agents/event, agents/load, agents/spend, cogloop,
// internal/backoff, internal/pyvalue, loopnode, memory, memory/redis and
// orchestrator.
//
// [asynq]: https://github.com/hibiken/asynq
package queue
