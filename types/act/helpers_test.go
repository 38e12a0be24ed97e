package act_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/act"
)

func registry() *agents.Registry {
	r := agents.NewRegistry()
	act.Register(r)
	return r
}

// build builds the agent src defines and requires that it loads without errors.
func build(t *testing.T, src string) agents.Agent {
	t.Helper()
	a, probs := agenttest.Build(t, registry(), src, nil)
	require.NoError(t, probs.Err(), "load problems")
	return a
}

// loadErr builds src and returns its load problems as one text, requiring some.
func loadErr(t *testing.T, src string) string {
	t.Helper()
	_, probs := agenttest.Build(t, registry(), src, nil)
	err := probs.Err()
	require.Error(t, err, "expected load problems")
	return err.Error()
}

// call runs a with the tool arguments args.
func call(t *testing.T, a agents.Agent, args map[string]any) (agents.Output, error) {
	t.Helper()
	return a.Run(context.Background(), agents.Input{Vars: map[string]any{"args": args}, Run: &agents.Run{ID: "test"}})
}

// yamlQuote quotes s for a YAML document.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
