package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
)

// maxRecordedRequest bounds the request text a model.call event carries
// (Data["request"]); its digest covers the whole request.
const maxRecordedRequest = 64 << 10

// reportCall emits the model.call event of one attempt (asked for by
// Run.ModelCalls): provider, model, duration, usage, error, and the prompt and
// reply scrubbed as the run scrubs them.
func (a *Agent) reportCall(in agents.Input, model agents.Model, req agents.Request, attempt int,
	took time.Duration, rep agents.Reply, err error, secrets []secrets.Secret) {
	name := req.Model
	if name == "" {
		name = a.pricedModel()
	}
	if m, ok := model.(*Model); ok && name == "" {
		name, _ = m.modelName("")
	}
	e := event.Event{Kind: event.ModelCall, Node: in.Path, Agent: a.ID, Attempt: attempt, Duration: took,
		Prompt:   in.Run.Scrub(req.Prompt, secrets...),
		Response: in.Run.Scrub(rep.Text, secrets...),
		Data:     map[string]any{"provider": providerName(model), "model": name}}
	// The request as sent, for replays: its digest and (bounded) text, both
	// scrubbed; the reply's tool calls.
	request := in.Run.Scrub(req.Transcript(), secrets...)
	sum := sha256.Sum256([]byte(request))
	e.Data["request_sha256"] = hex.EncodeToString(sum[:])
	if len(request) > maxRecordedRequest {
		request = request[:maxRecordedRequest]
		e.Data["request_cut"] = true
	}
	e.Data["request"] = request
	if len(rep.ToolCalls) > 0 {
		calls := make([]map[string]any, len(rep.ToolCalls))
		for i, c := range rep.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "name": c.Name, "args": in.Run.Scrub(c.Args, secrets...)}
		}
		e.Data["tool_calls"] = calls
	}
	if rep.Usage != (spend.Usage{}) {
		u := rep.Usage
		e.Usage = &u
	}
	if err != nil {
		e.Error = in.Run.Scrub(err.Error(), secrets...)
	}
	in.Run.Emit(e)
}

// providerName names the provider behind model for telemetry: the provider of
// a langchaingo model, "scripted" for scripted replies, else "unknown".
func providerName(model agents.Model) string {
	switch m := model.(type) {
	case *Model:
		return string(m.Provider())
	case *scripted.Model:
		return "scripted"
	}
	return "unknown"
}
