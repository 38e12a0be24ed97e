package agents

import "slices"

// Optional event kinds: emitted only when the run asks for them ([Run.Deltas],
// [Run.ModelCalls]), so the default event stream does not change.
const (
	// EventAgentDelta carries a piece of a model reply as it streams in
	// (Response; Node is the agent's path, Attempt the call's attempt). Pieces
	// are coalesced and scrubbed of the run's secrets; in order, the pieces of
	// one attempt make up its reply.
	EventAgentDelta = "agent.delta"
	// EventModelCall reports one model call (one attempt) after it returned:
	// Node is the calling agent's path, Duration the call's, Usage what the
	// model reported, Error its failure, Data["provider"] and Data["model"]
	// the endpoint, Prompt and Response the (scrubbed) text sent and received.
	EventModelCall = "model.call"
)

// Secrets returns the run's secrets and extra, the longest first: what
// [Run.Scrub] replaces. It is safe on a nil *Run.
func (r *Run) Secrets(extra ...Secret) []Secret {
	var all []Secret
	if r != nil {
		if v, ok := r.locals.Load(runSecrets); ok {
			ss := v.(*Secrets)
			ss.mu.RLock()
			all = slices.Clone(ss.list)
			ss.mu.RUnlock()
		}
	}
	all = append(all, extra...)
	slices.SortStableFunc(all, func(a, b Secret) int { return len(b.Reveal()) - len(a.Reveal()) })
	return all
}
