// Package scout owns OrKa's "propose, validate, execute" pair: graph-scout,
// which reads the workflow's agent definitions, searches paths through them
// by beam search and scores them with OrKa's heuristics, returning OrKa's
// decision structure (decision, target, confidence, candidates, reasoning);
// and path_executor, which finds an agent list at a dotted path of earlier
// outputs (a graph-scout decision, a validated path, JSON text) and runs
// those agents in order through the ordinary step runner.
//
// Both read the workflow through their [agents.Builder]: graph-scout
// the descriptions of the visible agents (type, capabilities, is_terminal,
// prompt, model), path_executor a resolver that finds built agents by id at
// run time. Built agents are immutable and safe for concurrent Run calls.
//
// graph-scout is deterministic: the same workflow and question give the same
// decision. Scores are compared first; equal scores are ordered by the
// candidates' agent ids in the order the workflow defines them (nearest
// workflow first, then file order), position by position, a shorter path
// before its extensions.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/retry,
// agents/spend, internal/pyvalue, prompt and types/llm.
package scout
