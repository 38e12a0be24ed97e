package cogloop

import (
	"errors"
	"fmt"

	"github.com/cogloop/cogloop/agents"
)

// injected are the dependencies load options give the built-in agent types
// instead of the process's globals.
type injected struct {
	client    httpClient // builtin.go: an *http.Client; nothing in a core build
	getenv    func(string) string
	lookup    func(string) (string, bool)
	providers map[string]agents.Model
}

// WithEnv reads the variables the built-in agent types read (API keys such
// as OPENAI_API_KEY, OPENAI_BASE_URL, BASE_OPENAI_MODEL, an agent's
// api_key_env, the variables a command tool's env: passes on, MCP servers'
// env:, PATH and header ${VAR}s) through lookup instead of the process
// environment, when the model is built and at each call. A variable lookup
// reports unset is unset. A command tool's inherit_env is refused at load
// with WithEnv (it would pass the process environment on, and lookup cannot
// list its variables): such a tool names its variables under env:.
func WithEnv(lookup func(name string) (string, bool)) LoadOption {
	return func(o *loadOptions) {
		o.inject.lookup = lookup
		o.inject.getenv = func(name string) string {
			v, _ := lookup(name)
			return v
		}
	}
}

// WithProvider makes a model written in Go available to the workflow under
// name: an LLM agent with provider: NAME is answered by m (the agent's
// model key arrives as agents.Request.Model). A name of a built-in provider
// (openai, ollama, ...) is refused by Parse.
func WithProvider(name string, m agents.Model) LoadOption {
	return func(o *loadOptions) {
		if o.inject.providers == nil {
			o.inject.providers = map[string]agents.Model{}
		}
		o.inject.providers[name] = m
	}
}

// check refuses injected dependencies that cannot be used: with a registry
// of the caller's ([WithRegistry]) they would silently do nothing.
func (in injected) check(ownRegistry bool) error {
	if ownRegistry && (in.client != nil || in.getenv != nil || in.providers != nil) {
		return errors.New("WithHTTPClient, WithEnv and WithProvider configure the built-in registry; with WithRegistry, register the types with their options yourself (llm.RegisterWith)")
	}
	if err := checkProviders(in.providers); err != nil {
		return fmt.Errorf("load option WithProvider: %w", err)
	}
	return nil
}
