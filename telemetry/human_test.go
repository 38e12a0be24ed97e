package telemetry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
)

const humanWF = `orchestrator: {id: asks, agents: [ok]}
agents:
  - {id: ok, type: human, prompt: "Go on?"}
`

// A waiting run's span ends with status waiting and a human.wait event on
// the step's span; the answer is a human.answer span as long as the wait,
// naming who answered.
func TestHumanSpans(t *testing.T) {
	ctx := context.Background()
	wf, err := cogloop.Parse([]byte(humanWF), "h.yaml")
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	res, _ := wf.Run(ctx, "x", cogloop.WithRunID("s"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithTracerProvider(tp))
	require.Equal(t, cogloop.StatusWaiting, res.Status)
	asked := res.Waiting.AskedAt
	require.NoError(t, cogloop.Answer(ctx, store, "s", human.Answer{Kind: human.KindApprove, Approved: true, By: "ann", At: asked.Add(time.Minute)}))
	_, err = wf.Run(ctx, "x", cogloop.WithResume("s", false), cogloop.WithMemory(store), cogloop.WithTracerProvider(tp))
	require.NoError(t, err)
	spans := exp.GetSpans()
	require.NoError(t, tp.Shutdown(ctx))

	var statuses []string
	var waited bool
	var answer tracetest.SpanStub
	for _, s := range spans {
		a := attrs(s)
		if v, ok := a["cogloop.run.status"]; ok {
			statuses = append(statuses, v.AsString())
		}
		for _, e := range s.Events {
			waited = waited || e.Name == "human.wait"
		}
		if s.Name == "human.answer ok" {
			answer = s
		}
	}
	assert.Equal(t, []string{"waiting", "ok"}, statuses)
	assert.True(t, waited, "a human.wait span event")
	require.Equal(t, "human.answer ok", answer.Name, "spans: %v", spans)
	assert.Equal(t, "ann", attrs(answer)["cogloop.human.answered_by"].AsString())
	assert.Equal(t, time.Minute, answer.EndTime.Sub(answer.StartTime).Round(time.Millisecond))
}
