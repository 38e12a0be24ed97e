// Package records owns run records: the event stream of a run kept as a file
// of JSON lines, one event a line, the same format as the CLI's --trace.
//
// # Writing
//
// A [Writer] encodes each event it observes as one complete line and writes it
// with a single call, so a process killed at any point (kill -9 included) leaves
// a file whose lines before the last are whole: a valid prefix of the stream.
// [Dir.Create] opens the record of a run id under a directory (the CLI's
// .cogloop/runs); [Dir.Prune] removes the oldest records once the directory
// holds more than [Dir.MaxBytes] ([DefaultMaxBytes], 200 MB, by default).
//
// # Reading
//
// [Dir.Read] (or [ReadFile]) parses a record; a record cut short (no run.end
// event, a last line without its end) reads as far as it is whole and is
// marked incomplete. [Summarize] turns events into a [Summary]: the run's
// status, errors and warnings (by [cogloop.CollectEvents]' rules), tokens and
// cost, and every loop run with its passes: score, stop-condition results,
// extracted lessons, tokens, errors and each agent's rendered prompt and reply.
// The CLI's runs, show and report commands and the report package read
// records through this package.
//
// # Concurrency
//
// A Writer is safe for concurrent use (fork branches emit from several
// goroutines). Dir is a value; reading and pruning touch only files.
//
// # Imports
//
// It imports agents/event, agents/fault, agents/spend, cogloop and loopnode.
package records
