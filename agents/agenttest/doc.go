// Package agenttest holds fakes for tests of packages that run agents: a registry
// of small deterministic agent types, and an event recorder.
package agenttest
