// Package agenttest holds fakes for tests of packages that run agents: a registry
// of small deterministic agent types, an event recorder, a fake sleeper,
// inline scripted replies and golden transcripts.
package agenttest
