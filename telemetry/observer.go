package telemetry

import (
	"context"
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// TracerProvider is OpenTelemetry's tracer provider (an SDK
// *sdktrace.TracerProvider, or any other implementation).
type TracerProvider = trace.TracerProvider

// ScopeName is the instrumentation scope of cogloop's spans.
const ScopeName = "github.com/cogloop/cogloop"

// Attribute keys of our own.
const (
	KeyRunID          = attribute.Key("cogloop.run.id")
	KeyWorkflow       = attribute.Key("cogloop.workflow")
	KeyNode           = attribute.Key("cogloop.node")
	KeyAgentID        = attribute.Key("cogloop.agent.id")
	KeyAgentType      = attribute.Key("cogloop.agent.type")
	KeyAttempt        = attribute.Key("cogloop.attempt")
	KeyLoopPass       = attribute.Key("cogloop.loop.pass")
	KeyLoopScore      = attribute.Key("cogloop.loop.score")
	KeyLoopBest       = attribute.Key("cogloop.loop.best_score")
	KeyLoopThreshold  = attribute.Key("cogloop.loop.threshold")
	KeyLoopMax        = attribute.Key("cogloop.loop.max_loops")
	KeyLoopPasses     = attribute.Key("cogloop.loop.passes")
	KeyLoopStopReason = attribute.Key("cogloop.loop.stop_reason")
	// KeyInputTokens and KeyOutputTokens sum the usage under an agent or run
	// span (gen_ai.usage.* is on model calls only, so backends that add it up
	// do not count a call twice).
	KeyInputTokens  = attribute.Key("cogloop.usage.input_tokens")
	KeyOutputTokens = attribute.Key("cogloop.usage.output_tokens")
	KeyPrompt       = attribute.Key("cogloop.prompt")
	KeyResponse     = attribute.Key("cogloop.response")
	// KeyGenAISystem is gen_ai.system, the older name of gen_ai.provider.name,
	// still read by many backends.
	KeyGenAISystem = attribute.Key("gen_ai.system")
	// KeyGenAIPrompt and KeyGenAICompletion hold a model call's text (only
	// with Options.Content).
	KeyGenAIPrompt     = attribute.Key("gen_ai.prompt")
	KeyGenAICompletion = attribute.Key("gen_ai.completion")
)

// Options tune an [Observer].
type Options struct {
	// Content records prompts and replies as span attributes (COGLOOP_OTEL_CONTENT=1
	// in the CLI). They are scrubbed of the run's secrets either way.
	Content bool
}

// Observer returns an event observer that records one run as spans of tp,
// under the span in ctx if there is one.
func Observer(ctx context.Context, tp TracerProvider, o Options) event.Observer {
	observe, _ := Tracer(ctx, tp, o)
	return observe
}

// Tracer is [Observer] that also returns spanContext: given a context and
// an agent's node path, it returns the context carrying the agent's open
// span (ctx itself when there is none), for the agent to run in, so that
// its model calls and the caller's own spans nest under it.
func Tracer(ctx context.Context, tp TracerProvider, o Options) (observe event.Observer, spanContext func(ctx context.Context, node string) context.Context) {
	t := &tracer{ctx: ctx, tr: tp.Tracer(ScopeName), o: o, open: map[string][]*span{}}
	return t.observe, t.spanContext
}

func (t *tracer) spanContext(ctx context.Context, node string) context.Context {
	t.mu.Lock()
	s := t.top(node)
	t.mu.Unlock()
	if s == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, s.Span)
}

type span struct {
	trace.Span
	ctx  context.Context
	loop bool
}

type tracer struct {
	ctx context.Context
	tr  trace.Tracer
	o   Options

	mu   sync.Mutex
	run  *span
	open map[string][]*span // node path → open spans there, innermost last
}

func (t *tracer) observe(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Kind {
	case event.RunStart:
		ctx, s := t.tr.Start(t.ctx, "run "+e.Node, trace.WithTimestamp(e.Time),
			trace.WithAttributes(KeyRunID.String(e.Run), KeyWorkflow.String(e.Node)))
		t.run = &span{Span: s, ctx: ctx}
	case event.RunEnd:
		t.endRun(e)
	case event.AgentStart:
		t.startAgent(e)
	case event.AgentEnd:
		t.endAgent(e)
	case event.LoopStart:
		if s := t.top(e.Node); s != nil {
			s.SetAttributes(KeyLoopMax.Int64(int64(number(e.Data["max_loops"]))), KeyLoopThreshold.Float64(number(e.Data["threshold"])))
		}
	case event.LoopIteration:
		t.endPass(e)
	case event.LoopEnd:
		if s := t.top(e.Node); s != nil {
			s.SetAttributes(KeyLoopStopReason.String(fmt.Sprint(e.Data["stop_reason"])),
				KeyLoopScore.Float64(number(e.Data["final_score"])), KeyLoopBest.Float64(number(e.Data["best_score"])),
				KeyLoopPasses.Int64(int64(number(e.Data["loops_completed"]))))
			fail(s, e.Error)
		}
	case event.ModelCall:
		t.modelCall(e)
	case event.ToolResult:
		t.toolCall(e)
	case event.HumanWait:
		t.humanWait(e)
	case event.HumanAnswer:
		t.humanAnswer(e)
	case event.RunPause:
		t.runSpan(e.Time).AddEvent("run.pause", trace.WithTimestamp(e.Time), trace.WithAttributes(KeyNode.String(e.Node)))
	}
}

// startAgent opens an agent's span (a loop's, for a loop) under the span of
// its parent node.
func (t *tracer) startAgent(e event.Event) {
	name := "agent " + e.Agent
	if e.Type == "loop" {
		name = "loop " + e.Agent
	}
	parent := t.parent(e.Node, e.Time)
	ctx, s := t.tr.Start(parent.ctx, name, trace.WithTimestamp(e.Time), trace.WithAttributes(
		KeyNode.String(e.Node), KeyAgentID.String(e.Agent), KeyAgentType.String(e.Type)))
	t.open[e.Node] = append(t.open[e.Node], &span{Span: s, ctx: ctx, loop: e.Type == "loop"})
}

// endAgent ends the agent's span (and a loop's open pass spans), with its
// prompt and response under Options.Content, its token usage and its error.
func (t *tracer) endAgent(e event.Event) {
	s := t.pop(e.Node)
	if s == nil {
		return
	}
	t.endPasses(e.Node, e.Time)
	if t.o.Content {
		if e.Prompt != "" {
			s.SetAttributes(KeyPrompt.String(e.Prompt))
		}
		if e.Response != "" {
			s.SetAttributes(KeyResponse.String(e.Response))
		}
	}
	if e.Usage != nil {
		s.SetAttributes(KeyInputTokens.Int(e.Usage.PromptTokens), KeyOutputTokens.Int(e.Usage.CompletionTokens))
	}
	fail(s, e.Error)
	s.End(trace.WithTimestamp(e.Time))
}

// Attribute keys of a tool call's span (with Options.Content): its arguments
// and result, scrubbed and clipped as the run recorded them.
const (
	KeyToolArgs   = attribute.Key("gen_ai.tool.call.arguments")
	KeyToolResult = attribute.Key("gen_ai.tool.call.result")
	KeyToolRound  = attribute.Key("cogloop.tool.round")
)

// toolCall records a finished tool call as an execute_tool span (the GenAI
// conventions' name) under the calling agent's span, beginning Duration
// before the event.
func (t *tracer) toolCall(e event.Event) {
	parent := t.parent(e.Node+fault.PathSep, e.Time)
	tool, _ := e.Data["tool"].(string)
	id, _ := e.Data["id"].(string)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(tool),
		semconv.GenAIToolCallID(id), semconv.GenAIToolType("function"), KeyNode.String(e.Node),
		KeyAgentID.String(e.Agent), KeyToolRound.Int64(int64(number(e.Data["round"])))}
	if t.o.Content {
		args, _ := e.Data["args"].(string)
		attrs = append(attrs, KeyToolArgs.String(args), KeyToolResult.String(e.Response))
	}
	_, s := t.tr.Start(parent.ctx, "execute_tool "+tool, trace.WithTimestamp(e.Time.Add(-e.Duration)),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	fail(s, e.Error)
	s.End(trace.WithTimestamp(e.Time))
}

// modelCall records a finished call as a span that began Duration before the event.
func (t *tracer) modelCall(e event.Event) {
	parent := t.parent(e.Node+fault.PathSep, e.Time)
	provider, _ := e.Data["provider"].(string)
	model, _ := e.Data["model"].(string)
	name := "chat"
	if model != "" {
		name += " " + model
	}
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(provider),
		KeyGenAISystem.String(provider), semconv.GenAIRequestModel(model), KeyNode.String(e.Node),
		KeyAgentID.String(e.Agent), KeyAttempt.Int(e.Attempt)}
	if e.Usage != nil {
		attrs = append(attrs, semconv.GenAIUsageInputTokens(e.Usage.PromptTokens),
			semconv.GenAIUsageOutputTokens(e.Usage.CompletionTokens))
	}
	if t.o.Content {
		attrs = append(attrs, KeyGenAIPrompt.String(e.Prompt), KeyGenAICompletion.String(e.Response))
	}
	_, s := t.tr.Start(parent.ctx, name, trace.WithTimestamp(e.Time.Add(-e.Duration)),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	fail(s, e.Error)
	s.End(trace.WithTimestamp(e.Time))
}

// parent is the innermost open span whose path is a proper prefix of node,
// opening the pass span of a loop ("loop › iteration 2") on the way if it is
// not open yet; the run span when there is none. t.mu is held.
func (t *tracer) parent(node string, at time.Time) *span {
	parts := strings.Split(node, fault.PathSep)
	for i := len(parts) - 1; i > 0; i-- {
		prefix := strings.Join(parts[:i], fault.PathSep)
		if s := t.top(prefix); s != nil {
			return s
		}
		if n, ok := passNumber(parts[i-1]); ok && i > 1 {
			loopPath := strings.Join(parts[:i-1], fault.PathSep)
			if loop := t.top(loopPath); loop != nil && loop.loop {
				return t.startPass(loop, prefix, n, at)
			}
		}
	}
	return t.runSpan(at)
}

func (t *tracer) startPass(loop *span, path string, n int, at time.Time) *span {
	ctx, s := t.tr.Start(loop.ctx, "pass "+strconv.Itoa(n), trace.WithTimestamp(at),
		trace.WithAttributes(KeyNode.String(path), KeyLoopPass.Int(n)))
	p := &span{Span: s, ctx: ctx}
	t.open[path] = append(t.open[path], p)
	return p
}

// endPass ends the pass a loop.iteration event reports, opening it first when
// no agent ran in it.
func (t *tracer) endPass(e event.Event) {
	n := int(number(e.Data["loop_number"]))
	path := fault.JoinPath(e.Node, "iteration "+strconv.Itoa(n))
	s := t.pop(path)
	if s == nil {
		loop := t.top(e.Node)
		if loop == nil {
			return
		}
		s = t.startPass(loop, path, n, e.Time.Add(-e.Duration))
		t.pop(path)
	}
	if v, ok := e.Data["score"]; ok {
		s.SetAttributes(KeyLoopScore.Float64(number(v)))
	}
	fail(s, e.Error)
	s.End(trace.WithTimestamp(e.Time))
}

// endPasses ends pass spans still open under a loop that ended (a pass cut
// short without its loop.iteration event).
func (t *tracer) endPasses(node string, at time.Time) {
	prefix := node + fault.PathSep
	for path, stack := range t.open {
		if strings.HasPrefix(path, prefix) {
			for _, s := range stack {
				s.End(trace.WithTimestamp(at))
			}
			delete(t.open, path)
		}
	}
}

func (t *tracer) endRun(e event.Event) {
	for path, stack := range t.open {
		for _, s := range stack {
			s.End(trace.WithTimestamp(e.Time))
		}
		delete(t.open, path)
	}
	s := t.runSpan(e.Time)
	if e.Usage != nil {
		s.SetAttributes(KeyInputTokens.Int(e.Usage.PromptTokens), KeyOutputTokens.Int(e.Usage.CompletionTokens))
	}
	if t.o.Content && e.Response != "" {
		s.SetAttributes(KeyResponse.String(e.Response))
	}
	if st, ok := e.Data["status"].(string); ok {
		s.SetAttributes(KeyRunStatus.String(st))
	}
	fail(s, e.Error)
	s.End(trace.WithTimestamp(e.Time))
	t.run = nil
}

// runSpan is the run's span, started now if run.start was not seen.
func (t *tracer) runSpan(at time.Time) *span {
	if t.run == nil {
		ctx, s := t.tr.Start(t.ctx, "run", trace.WithTimestamp(at))
		t.run = &span{Span: s, ctx: ctx}
	}
	return t.run
}

func (t *tracer) top(path string) *span {
	if stack := t.open[path]; len(stack) > 0 {
		return stack[len(stack)-1]
	}
	return nil
}

func (t *tracer) pop(path string) *span {
	stack := t.open[path]
	if len(stack) == 0 {
		return nil
	}
	s := stack[len(stack)-1]
	if len(stack) == 1 {
		delete(t.open, path)
	} else {
		t.open[path] = stack[:len(stack)-1]
	}
	return s
}

func fail(s trace.Span, msg string) {
	if msg != "" {
		s.SetStatus(codes.Error, msg)
	}
}

// passNumber reads a pass path part, "iteration 3".
func passNumber(part string) (int, bool) {
	rest, ok := strings.CutPrefix(part, "iteration ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

// number reads a number of an event's data, 0 when it holds none.
func number(v any) float64 {
	f, _ := pyvalue.Number(v)
	return f
}
