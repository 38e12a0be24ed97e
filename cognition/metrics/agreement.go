package metrics

import (
	"context"
	"math"
	"strings"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/internal/embedding"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/values"
)

// agreementFields are read, first non-empty wins, for an agent's text.
var agreementFields = [...]string{"response", "result", "output", "content", "answer"}

// Agreement is OrKa's agreement fallback: the mean pairwise cosine similarity
// of the agents' texts embedded by emb with ctx, not clamped. An agent's text
// is a non-blank string result, or the first truthy field of response, result,
// output, content, answer of a mapping result. ok is false when fewer than two
// texts or non-empty vectors of the same length are found; err is emb's first
// error (the remaining texts are not embedded).
func Agreement(ctx context.Context, results []cognition.Result, emb embedding.Embedder) (v float64, ok bool, err error) {
	var texts []string
	for _, res := range results {
		if s, ok := res.Value.(string); ok {
			if strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
			continue
		}
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		for _, f := range agreementFields {
			if v := m[f]; pyvalue.Truthy(v) {
				texts = append(texts, values.Text(v))
				break
			}
		}
	}
	if len(texts) < 2 {
		return 0, false, nil
	}
	vecs := make([][]float64, 0, len(texts))
	for _, text := range texts {
		v, err := emb.Embed(ctx, text)
		if err != nil {
			return 0, false, err
		}
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		vecs = append(vecs, f)
	}
	v, ok = meanCosine(vecs)
	return v, ok, nil
}

// meanCosine is the mean cosine similarity over all ordered pairs of distinct
// non-empty vectors of the same length as the first one. A zero vector has
// similarity 0 with everything.
func meanCosine(vecs [][]float64) (float64, bool) {
	var use [][]float64
	for _, v := range vecs {
		if len(v) == 0 || (len(use) > 0 && len(v) != len(use[0])) {
			continue
		}
		use = append(use, v)
	}
	if len(use) < 2 {
		return 0, false
	}
	norms := make([]float64, len(use))
	for i, v := range use {
		for _, x := range v {
			norms[i] += x * x
		}
		norms[i] = math.Sqrt(norms[i])
	}
	sum, pairs := 0.0, 0
	for i := range use {
		for j := i + 1; j < len(use); j++ {
			pairs++
			if norms[i] == 0 || norms[j] == 0 {
				continue
			}
			dot := 0.0
			for k := range use[i] {
				dot += use[i][k] * use[j][k]
			}
			sum += dot / (norms[i] * norms[j])
		}
	}
	mean := sum / float64(pairs)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, false
	}
	return mean, true
}
