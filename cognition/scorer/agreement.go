package scorer

import (
	"context"

	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/embedding"
)

// agreement is step 5: [metrics.Agreement] of the results, clamped to [0, 1].
// Fewer than two texts or vectors score nothing; an embedder error is a
// warning.
func (r *scoreRun) agreement(ctx context.Context, emb embedding.Embedder) (Score, bool) {
	v, ok, err := metrics.Agreement(ctx, r.results, emb)
	if err != nil {
		r.Warn(CodeAgreement, "agreement fallback: embed: %v", err)
		return Score{}, false
	}
	if !ok {
		return Score{}, false
	}
	return Score{Value: clamp01(v), Strategy: StrategyAgreement}, true
}
