package orchestrator

import (
	"fmt"
	"slices"
	"strings"
)

// keyNeeder is an agent whose model reads an API key from the environment
// (an LLM agent): MissingKey names the variable when it is not set.
type keyNeeder interface{ MissingKey() string }

// keyUse is an agent of the file that needs a key, by id.
type keyUse struct {
	id string
	a  keyNeeder
}

// Preflight lists what would fail as soon as the workflow runs in this
// environment, one line per missing API key with the agents that need it:
// "OPENAI_API_KEY is not set; agents writer, critic will fail". It reads the
// environment now; nothing is called.
func (w *Workflow) Preflight() []string {
	var order []string
	users := map[string][]string{}
	for _, u := range w.keyUsers {
		env := u.a.MissingKey()
		if env == "" {
			continue
		}
		if _, ok := users[env]; !ok {
			order = append(order, env)
		}
		if !slices.Contains(users[env], u.id) {
			users[env] = append(users[env], u.id)
		}
	}
	out := make([]string, 0, len(order))
	for _, env := range order {
		ids := users[env]
		what := "agent " + ids[0]
		if len(ids) > 1 {
			what = "agents " + strings.Join(ids, ", ")
		}
		out = append(out, fmt.Sprintf("%s is not set; %s will fail", env, what))
	}
	return out
}
