package flow

import (
	"errors"
	"fmt"

	"github.com/cogloop/cogloop/agents"
)

// ForkConfig is a fork as a Go value: [NewForkFrom] builds it, and the YAML
// factory (type: fork) reads targets into one and builds it the same way.
type ForkConfig struct {
	// ID names the fork in paths and events.
	ID string
	// Branches run side by side; each runs its steps in order (make them
	// with agents.NewStep). Later agents see every branch agent's output.
	Branches [][]agents.Step
	// Mode is ModeParallel (default) or ModeSequential.
	Mode string
	// MaxConcurrency bounds the parallel branches running at once (0: all).
	MaxConcurrency int
	// FailFast ends the fork at the first failed branch agent.
	FailFast bool
}

// NewForkFrom builds a fork from cfg. Branches must be non-empty, and an
// agent id may appear in one branch only.
func NewForkFrom(cfg ForkConfig) (*Fork, error) {
	var errs []error
	if cfg.Mode != "" && cfg.Mode != ModeParallel && cfg.Mode != ModeSequential {
		errs = append(errs, fmt.Errorf("fork %q: Mode must be %s or %s, not %q", cfg.ID, ModeParallel, ModeSequential, cfg.Mode))
	}
	if cfg.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("fork %q: MaxConcurrency must not be negative", cfg.ID))
	}
	if len(cfg.Branches) == 0 {
		errs = append(errs, fmt.Errorf("fork %q: no Branches: give at least one list of steps", cfg.ID))
	}
	seen := map[string]int{}
	for i, br := range cfg.Branches {
		if len(br) == 0 {
			errs = append(errs, fmt.Errorf("fork %q: branch %d is empty", cfg.ID, i+1))
		}
		for _, st := range br {
			if prev, dup := seen[st.ID]; dup {
				errs = append(errs, fmt.Errorf("fork %q: step %q is in branch %d and %d; an agent runs in one branch", cfg.ID, st.ID, prev, i+1))
			}
			seen[st.ID] = i + 1
			if st.Agent == nil {
				errs = append(errs, fmt.Errorf("fork %q: step %q has no agent", cfg.ID, st.ID))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeParallel
	}
	return newFork(cfg), nil
}

// newFork builds a fork from a checked cfg.
func newFork(cfg ForkConfig) *Fork {
	f := &Fork{id: cfg.ID, mode: cfg.Mode, limit: cfg.MaxConcurrency, failFast: cfg.FailFast}
	f.idVal, f.modeVal = f.id, f.mode
	for _, steps := range cfg.Branches {
		f.branches = append(f.branches, agents.Sequence{Steps: steps, StopOnError: f.failFast})
		branchIDs := make([]string, len(steps))
		values := make([]any, len(steps))
		for k, st := range steps {
			branchIDs[k], values[k] = st.ID, st.ID
		}
		f.ids = append(f.ids, branchIDs)
		f.idValues = append(f.idValues, values)
		f.flat = append(f.flat, branchIDs...)
		f.flatVals = append(f.flatVals, values...)
	}
	return f
}

// RouterConfig is a router as a Go value: [NewRouterFrom] builds it, and the
// YAML factory (type: router) reads params into one and builds it the same way.
type RouterConfig struct {
	// ID names the router in paths and events.
	ID string
	// DecisionKey is the id of the earlier agent whose answer picks the route.
	DecisionKey string
	// Routes are tried by OrKa's ladder (see [Router]), in order.
	Routes []Route
	// Fallback runs when no route matches; nil means none (a warning), an
	// empty non-nil list a decision to run nothing.
	Fallback []agents.Step
}

// Route is one routing_map entry: the answer value and the steps it runs.
type Route struct {
	Key   string
	Steps []agents.Step
}

// NewRouterFrom builds a router from cfg.
func NewRouterFrom(cfg RouterConfig) (*Router, error) {
	var errs []error
	if cfg.DecisionKey == "" {
		errs = append(errs, fmt.Errorf("router %q: DecisionKey is empty: name the agent whose answer picks the route", cfg.ID))
	}
	if len(cfg.Routes) == 0 {
		errs = append(errs, fmt.Errorf("router %q: no Routes", cfg.ID))
	}
	keys := map[string]bool{}
	for _, rt := range cfg.Routes {
		if keys[rt.Key] {
			errs = append(errs, fmt.Errorf("router %q: route key %q is given twice", cfg.ID, rt.Key))
		}
		keys[rt.Key] = true
		for _, st := range rt.Steps {
			if st.Agent == nil {
				errs = append(errs, fmt.Errorf("router %q: route %q: step %q has no agent", cfg.ID, rt.Key, st.ID))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return newRouter(cfg), nil
}

// newRouter builds a router from a checked cfg.
func newRouter(cfg RouterConfig) *Router {
	r := &Router{id: cfg.ID, key: cfg.DecisionKey, steps: map[string]agents.Step{}}
	note := func(steps []agents.Step) {
		for _, st := range steps {
			if _, known := r.steps[st.ID]; !known {
				r.steps[st.ID] = st
				r.refs = append(r.refs, st.ID)
			}
		}
	}
	for _, rt := range cfg.Routes {
		note(rt.Steps)
		r.routes = append(r.routes, route{key: rt.Key, lower: fold(rt.Key), bool: boolKey(rt.Key), steps: rt.Steps})
	}
	if cfg.Fallback != nil {
		note(cfg.Fallback)
		r.fallback = &route{key: "fallback_route", bool: -1, steps: cfg.Fallback}
	}
	return r
}

// ID is the fork's id.
func (f *Fork) ID() string { return f.id }

// Type is the fork's agent type name.
func (f *Fork) Type() string { return TypeFork }

// ID is the router's id.
func (r *Router) ID() string { return r.id }

// Type is the router's agent type name.
func (r *Router) Type() string { return TypeRouter }
