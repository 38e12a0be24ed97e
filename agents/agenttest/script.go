package agenttest

import (
	"testing"

	"github.com/cogloop/cogloop/agents/scripted"
)

// Script parses scripted replies (the --script format) given inline; a parse
// error fails the test.
func Script(t testing.TB, src string) *scripted.Script {
	t.Helper()
	s, err := scripted.Parse([]byte(src), "script.yaml")
	if err != nil {
		t.Fatalf("scripted replies: %v", err)
	}
	return s
}
