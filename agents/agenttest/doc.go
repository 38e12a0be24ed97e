// Package agenttest holds fakes for tests of packages that run agents: a registry
// of small deterministic agent types, an event recorder, a fake sleeper,
// inline scripted replies, golden transcripts, a Workspace and Build for one
// agent built outside a workflow, a canary API key for the secret tests, and the
// OpenAI chat-completions wire format for httptest servers that stand in for
// a provider. Only tests import it.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/scripted,
// agents/spend, prompt and scoring.
package agenttest
