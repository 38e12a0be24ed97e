package load_test

import (
	"github.com/cogloop/cogloop/agents/load"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	names := []string{"score", "best_score", "loop_number", "input"}
	assert.Equal(t, "score", load.Closest("scroe", names))
	assert.Equal(t, "input", load.Closest("inptu", names))
	assert.Equal(t, "", load.Closest("budget", names))
	assert.Equal(t, "", load.Closest("score", []string{"score"}), "the name itself is no suggestion")
}
