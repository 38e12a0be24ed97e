// Package act owns the built-in agent types that act on the world: http
// (a request to an allow-listed host), command (a program run without a
// shell), read_file and write_file (files under a root directory). They are
// ordinary agents that run in a workflow like any other; their purpose is to
// be offered to a model as tools (an LLM agent's tools: list), so each reads
// the call's arguments from the template variable args ({{ args.path }}), and
// its output (response and fields) is what the model sees as the result.
//
// # Safety
//
// Every call is bounded, and what a tool may reach is fixed in the workflow
// file, never by the model:
//
//   - http refuses a URL whose host is not in allow_hosts before any request,
//     and every redirect the same way; it uses no proxy; it reads at most
//     max_bytes of the (decompressed) body and times out.
//   - command runs its argv directly (no shell, so arguments are never
//     parsed as shell syntax), with only the environment variables env names,
//     in its own process group, which is killed as a whole at the timeout;
//     stdout and stderr are each cut at max_output with a note.
//   - read_file and write_file resolve paths inside root with [os.Root]: an
//     absolute path, a ".." that leaves root, or a symlink pointing outside it
//     is refused. Reads and writes are size-capped.
//
// Relative root and dir are relative to the workflow file's directory.
// Text that reaches an output is scrubbed of the run's secrets.
//
// The agents are immutable after construction and safe for concurrent Run.
//
// # Imports
//
// It imports agents, agents/load and prompt.
package act
