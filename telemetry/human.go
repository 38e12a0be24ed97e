package telemetry

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cogloop/cogloop/agents/event"
)

// Attribute keys of people's answers: a run's status (waiting and paused
// runs end their span too), and the human.answer span's kind and who
// answered.
const (
	KeyRunStatus  = attribute.Key("cogloop.run.status")
	KeyHumanKind  = attribute.Key("cogloop.human.kind")
	KeyHumanBy    = attribute.Key("cogloop.human.answered_by")
	keyHumanQuery = attribute.Key("cogloop.human.question")
)

// humanWait marks, on the waiting step's span, that it asks a person.
func (t *tracer) humanWait(e event.Event) {
	s := t.parent(e.Node+" ›", e.Time)
	attrs := []attribute.KeyValue{KeyNode.String(e.Node), KeyHumanKind.String(fmt.Sprint(e.Data["kind"]))}
	if t.o.Content {
		attrs = append(attrs, keyHumanQuery.String(e.Message))
	}
	s.AddEvent("human.wait", trace.WithTimestamp(e.Time), trace.WithAttributes(attrs...))
}

// humanAnswer records an answer as a span as long as the question waited.
func (t *tracer) humanAnswer(e event.Event) {
	parent := t.parent(e.Node+" ›", e.Time)
	waited := time.Duration(number(e.Data["waited_ms"])) * time.Millisecond
	by, _ := e.Data["answered_by"].(string)
	attrs := []attribute.KeyValue{KeyNode.String(e.Node), KeyAgentID.String(e.Agent),
		KeyHumanKind.String(fmt.Sprint(e.Data["kind"])), KeyHumanBy.String(by)}
	if t.o.Content {
		attrs = append(attrs, KeyResponse.String(e.Response))
	}
	_, s := t.tr.Start(parent.ctx, "human.answer "+e.Agent, trace.WithTimestamp(e.Time.Add(-waited)), trace.WithAttributes(attrs...))
	s.End(trace.WithTimestamp(e.Time))
}
