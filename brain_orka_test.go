package cogloop_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OrKa's skill transfer example learns a skill from one domain's reasoning
// (a dict rendered into the prompt as Python's repr), recalls it for another
// domain and records the transfer.
func TestOrKaBrainSkillTransfer(t *testing.T) {
	path := filepath.Join("testdata", "orka", "brain_skill_transfer_workflow.yml")
	wf, res, _, err := offline(t, path, filepath.Join("testdata", "orka", "brain_skill_transfer_workflow.replies.yaml"), "Reduce late deliveries")
	require.NotNil(t, wf)
	require.NoError(t, err)
	get := func(id string) map[string]any {
		o, ok := res.Outputs.Get(id)
		require.True(t, ok, id)
		return o.Map()
	}
	learned := get("brain_learn")
	require.NotEmpty(t, learned["skill_id"])
	assert.Equal(t, []any{"identify [component/entity]", "isolate [component/entity]", "verify [component/entity]"}, learned["skill_steps"])
	assert.Equal(t, learned["skill_id"], get("brain_recall")["skill_id"], "the skill is recalled in the other domain")
	fb := get("brain_feedback")
	assert.Equal(t, learned["skill_id"], fb["skill_id"])
	assert.Equal(t, 1, fb["transfer_count"])
}
