package agents

import (
	"slices"

	"github.com/cogloop/cogloop/agents/secrets"
)

// Secrets returns the run's secrets and extra, the longest first: what
// [Run.Scrub] replaces. It is safe on a nil *Run.
func (r *Run) Secrets(extra ...secrets.Secret) []secrets.Secret {
	var all []secrets.Secret
	if r != nil {
		all = r.secrets.Load().List()
	}
	all = append(all, extra...)
	slices.SortStableFunc(all, func(a, b secrets.Secret) int { return len(b.Reveal()) - len(a.Reveal()) })
	return all
}

// SecretUser is an agent configured with secrets (an LLM agent's API key, an
// embedder's): the builder collects them into the run's [secrets.Set].
type SecretUser interface {
	Secrets() []secrets.Secret
}

// AddSecrets adds secrets to the set the run scrubs from model replies. It is
// safe on a nil *Run (it does nothing).
func (r *Run) AddSecrets(list ...secrets.Secret) {
	if r == nil || len(list) == 0 {
		return
	}
	ss := r.secrets.Load()
	if ss == nil {
		r.secrets.CompareAndSwap(nil, &secrets.Set{})
		ss = r.secrets.Load()
	}
	ss.Add(list...)
}

// Scrub replaces the run's secrets, and extra, in s ([secrets.Set.Scrub]). It is
// safe on a nil *Run (only extra is scrubbed then).
func (r *Run) Scrub(s string, extra ...secrets.Secret) string {
	if r == nil {
		return secrets.Scrub(s, extra...)
	}
	return r.secrets.Load().Scrub(s, extra...)
}
