// Package agenttest holds fakes for tests of packages that run agents: a registry
// of small deterministic agent types, an event recorder, a fake sleeper,
// inline scripted replies, golden transcripts, a Builder and Build for one
// agent outside a workflow, and the OpenAI chat-completions wire format for
// httptest servers that stand in for a provider.
package agenttest
