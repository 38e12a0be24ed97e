package agenttest

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// CanaryKey sets a fresh random API key ("sk-canary-" and 24 hex digits) as
// the environment variable name for the test and returns it, for tests that
// then look for the key where it must never show.
func CanaryKey(t *testing.T, name string) string {
	t.Helper()
	raw := make([]byte, 12)
	if _, err := rand.Read(raw); err != nil {
		t.Fatalf("random canary: %v", err)
	}
	key := "sk-canary-" + hex.EncodeToString(raw)
	t.Setenv(name, key)
	return key
}
