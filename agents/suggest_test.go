package agents_test

import (
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	names := []string{"score", "best_score", "loop_number", "input"}
	assert.Equal(t, "score", agents.Closest("scroe", names))
	assert.Equal(t, "input", agents.Closest("inptu", names))
	assert.Equal(t, "", agents.Closest("budget", names))
	assert.Equal(t, "", agents.Closest("score", []string{"score"}), "the name itself is no suggestion")
}
