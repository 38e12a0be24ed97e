// Package serve owns cogloop's web UI (cogloop serve): the runs page, the
// live page of one run, the comparison of runs, the queue page, and the JSON
// API under /api/ that the pages use and scripts can too.
//
// # What it reads
//
// Runs are their records (package records): the JSONL event streams that
// cogloop run, worker and serve itself write into one record directory. A
// run's live events are that file tailed: every event has the id of its place
// in the record (1, 2, …), so a client that reconnects with Last-Event-ID
// gets exactly the events it missed. Runs this server starts also report in
// process: each event wakes the readers of that run at once instead of at
// the next poll of the file. The queue page reads asynq's inspector through
// package queue.
//
// # What it renders
//
// A run's page is package report's page body ([report.WriteBody]), refreshed
// as events arrive, under a live panel (the current agent and its streamed
// reply, tool calls, the pass, tokens, cost, the stop reason). The comparison
// is [report.WriteCompare]. Every value from a model or a user reaches the
// browser through html/template or as text set by script (textContent),
// never as markup; pages run no inline script (a Content-Security-Policy
// forbids it).
//
// # Starting runs
//
// A run is started from a workflow file under [Config.Workflows] only (a
// path that leaves it is refused) through [Config.Start], which the CLI wires
// to the code of cogloop run; scripted replies beside the workflow
// (X.replies.yaml next to X.yaml, or replies.yaml next to workflow.yaml)
// answer its model calls.
//
// # Safety
//
// [New] refuses an address off loopback without a token. With a token every
// request must carry it (Authorization: Bearer, or the cookie the login page
// sets). Requests that change something must come from the same origin
// (net/http's CrossOriginProtection), and a server without a token answers
// only requests addressed to a loopback host name (against DNS rebinding).
// Each client of an event stream has a bounded buffer: a client that falls
// behind is dropped (it reconnects and resumes), never slowing a run.
//
// # Lifecycle
//
// A [Server] is safe for concurrent use; [Server.Close] cancels the runs it
// started and waits for them and for its readers of records.
//
// # Imports
//
// It imports agents/event, agents/spend, app/queue, app/records, app/report,
// cogloop and types/human.
package serve
