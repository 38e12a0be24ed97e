package scout_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The evaluation model is a real provider client: lm_studio at model_url,
// here an httptest server speaking OpenAI's chat completions protocol.
func TestGraphScoutEvaluationProvider(t *testing.T) {
	var calls atomic.Int32
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		req, err := agenttest.ReadChatRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		asked = req.Model + "\n" + req.Prompt
		agenttest.WriteChatReply(w, `{"1": 0.2, "2": 0.9}`, 30, 8)
	}))
	defer srv.Close()
	w := loadWorkflow(t, scoutWorkflow("k_beam: 2, max_depth: 1, require_terminal: false, llm_evaluation_enabled: true, provider: lm_studio, model_url: "+srv.URL+", evaluation_model_name: judge-model"))
	out, _, err := run(t, w, "search the web")
	require.NoError(t, err)
	gs := agenttest.Output(t, out.Children, "gs")
	require.False(t, gs.Failed(), gs.Err)
	assert.Equal(t, int32(1), calls.Load())
	assert.True(t, strings.HasPrefix(asked, "judge-model\n"), asked)
	assert.Contains(t, asked, "Rate how well each candidate path")
	assert.Equal(t, "llm", gs.Fields["trace"].(map[string]any)["scored_by"])
	assert.Equal(t, 38, gs.Usage.Total())
	best := gs.Fields["candidates"].([]any)[0].(map[string]any)
	assert.Equal(t, 0.9, best["score_components"].(map[string]any)["llm"])
}
