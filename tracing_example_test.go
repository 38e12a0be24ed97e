package cogloop_test

import (
	"context"
	"fmt"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
)

// A run recorded as OpenTelemetry spans (here in memory; the CLI exports over
// OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set), and its replies streamed as
// agent.delta events.
func ExampleWithTracerProvider() {
	wf, err := cogloop.Parse([]byte(`
orchestrator: {id: refine, agents: [refine_loop]}
agents:
  - id: refine_loop
    type: loop
    max_loops: 3
    score_threshold: 0.8
    internal_workflow:
      orchestrator: {id: inner, agents: [critic]}
      agents:
        - {id: critic, type: scripted, prompt: "Rate it", responses: ["SCORE: 0.4", "SCORE: 0.9"]}
`), "inline.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var streamed strings.Builder
	_, err = wf.Run(context.Background(), "cogloop", cogloop.WithTracerProvider(tp), cogloop.WithDeltas(),
		cogloop.WithObserver(func(e event.Event) {
			switch e.Kind {
			case event.AgentDelta: // pieces of the reply as they arrive
				streamed.WriteString(e.Response)
			case event.AgentEnd:
				if e.Agent == "critic" {
					streamed.WriteString(" (end)\n")
				}
			}
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range exp.GetSpans() { // in the order they ended
		fmt.Println(s.Name)
	}
	fmt.Print(streamed.String())
	// Output:
	// chat
	// agent critic
	// pass 1
	// chat
	// agent critic
	// pass 2
	// loop refine_loop
	// run refine
	// SCORE: 0.4 (end)
	// SCORE: 0.9 (end)
}
