package loopnode_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeedbackAppend(t *testing.T) {
	_, out := loopResult(t, "append", "l")
	prompt := out["result"].(map[string]any)["writer"].(map[string]any)["formatted_prompt"]
	assert.Equal(t, "the topic\n---\nfirst answer\n---\nsecond answer", prompt)
}

func TestNestedLoopVariables(t *testing.T) {
	_, err := transcript(t, "nested_vars")
	require.NoError(t, err)
}
