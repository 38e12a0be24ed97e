package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/prompt"
)

// DefaultTimeout bounds an LLM agent's call, retries included, when the agent
// sets no timeout (OrKa's default).
const DefaultTimeout = 120 * time.Second

// defaultTemperature is OrKa's temperature for openai-answer & co. and local_llm.
const defaultTemperature = 0.7

// defaultLocalModel is OrKa's model for local_llm when none is given.
const defaultLocalModel = "llama3.2:latest"

// Options are what the registered agent types depend on. The zero value reads
// the process environment, uses [DefaultHTTPClient], real timers and slog.Default.
type Options struct {
	// Getenv reads API keys, BASE_OPENAI_MODEL and OPENAI_BASE_URL.
	Getenv func(string) string
	// HTTPClient is shared by every agent's provider client.
	HTTPClient *http.Client
	// Sleep and Rand replace the retry backoff's timer and jitter source (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
	// Logger receives a debug record per retry (errors scrubbed of keys); nil
	// means slog.Default() at call time.
	Logger *slog.Logger
	// Providers are models written in Go that a workflow names with
	// provider: NAME on any LLM agent type; the agent's model key reaches
	// them as [agents.Request].Model. A name of a built-in provider is
	// refused ([CheckProviders]).
	Providers map[string]agents.Model
}

// CheckProviders reports a Go provider named like a built-in one (openai,
// ollama, ...) or with an empty name or a nil model.
func CheckProviders(ps map[string]agents.Model) error {
	for name, m := range ps {
		switch _, err := ParseProvider(name); {
		case strings.TrimSpace(name) == "":
			return errors.New("a Go provider has an empty name")
		case err == nil:
			return fmt.Errorf("the Go provider %q has the name of a built-in provider: choose another name", name)
		case m == nil:
			return fmt.Errorf("the Go provider %q is nil", name)
		}
	}
	return nil
}

// WithDefaults fills what o leaves empty: os.Getenv and one
// [DefaultHTTPClient] that every agent registered with o shares.
func (o Options) WithDefaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.HTTPClient == nil {
		o.HTTPClient = DefaultHTTPClient()
	}
	return o
}

// Register adds the LLM agent types to r: openai-answer, openai-binary,
// openai-classification, local_llm, llm and scripted.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	o = o.WithDefaults()
	for _, t := range llmTypes {
		r.MustRegister(t.name, o.llmFactory(t))
	}
	r.MustRegister("scripted", o.scriptedFactory)
	r.MustRegister("validate_and_structure", o.structureFactory)
}

type typeSpec struct {
	name        string
	kind        Kind
	defProvider Provider   // "" means provider is required
	allowed     []Provider // nil means any
	defModel    string
}

var llmTypes = []typeSpec{
	{name: "openai-answer", kind: Answer, defProvider: OpenAI},
	{name: "openai-binary", kind: Binary, defProvider: OpenAI},
	{name: "openai-classification", kind: Classification, defProvider: OpenAI},
	{name: "local_llm", kind: Answer, allowed: []Provider{Ollama, LMStudio, OpenAICompatible}, defModel: defaultLocalModel},
	{name: "llm", kind: Answer},
}

// orkaIgnored are keys OrKa accepts on LLM agents that cogloop loads and ignores.
var orkaIgnored = []string{"queue", "memory_config", "fallback_score", "timeout_score"}

// defaultPrompt is the prompt of an LLM agent that has none: OrKa's
// (agents/local_llm_agents.py: "Input: {{ input }}").
const defaultPrompt = "Input: {{ input }}"

func (o Options) retrier(c *load.Config) retry.Retrier {
	return retry.Retrier{Policy: retry.ReadPolicy(c, "retry", retry.DefaultLLM()),
		Sleep: o.Sleep, Rand: o.Rand, Logger: o.Logger}
}

func (o Options) llmFactory(t typeSpec) agents.Factory {
	return func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		a := &Agent{ID: c.String("id", ""), Kind: t.kind, UseRunModels: true}
		a.Prompt = b.Template(c, "prompt")
		if !c.Has("prompt") && !c.Recording() {
			c.Warnf("", "no prompt: OrKa's default %q is used (set prompt: to say what the model is asked)", defaultPrompt)
			t, err := prompt.Parse(c.What()+" prompt", defaultPrompt, prompt.Options{})
			if err != nil {
				return nil, err
			}
			a.Prompt = t
		}
		a.System = b.Template(c, "system_prompt")
		o.readModel(c, a, t)
		readTools(b, c, a)
		return a, nil
	}
}

// readTools reads tools, max_tool_rounds and tool_choice.
func readTools(b *agents.Builder, c *load.Config, a *Agent) {
	a.Tools = b.Tools(c, "tools")
	a.MaxToolRounds = c.Int("max_tool_rounds", defaultMaxToolRounds, 1, 1000)
	a.ToolChoice = strings.TrimSpace(c.String("tool_choice", toolChoiceAuto))
	readApprove(c, a)
	if c.Recording() || !c.Has("tool_choice") {
		return
	}
	switch ch := a.ToolChoice; {
	case !c.Has("tools"):
		c.Errorf("tool_choice", "tool_choice without tools: list the tools the model may call (tools: [ids])")
	case ch == toolChoiceAuto || ch == toolChoiceNone:
	case ch == toolChoiceRequired || a.tool(ch) != nil:
		if m, ok := a.Model.(*Model); ok && m.Provider() == Anthropic {
			c.Errorf("tool_choice", "tool_choice %q cannot be sent to provider anthropic (langchaingo's client sends no tool_choice): use auto, or none", ch)
		}
	case slices.Contains(c.Strings("tools"), ch):
		// a tool already reported as unusable
	default:
		hint := ""
		if m := load.Closest(ch, c.Strings("tools")); m != "" {
			hint = fmt.Sprintf("; did you mean %q?", m)
		}
		c.Errorf("tool_choice", "tool_choice %q is not auto, required, none or one of the tools (%s)%s", ch, strings.Join(c.Strings("tools"), ", "), hint)
	}
}

// readApprove reads approve_tools: tool names (of tools:, or MCP
// server.tool names) or all.
func readApprove(c *load.Config, a *Agent) {
	a.ApproveTools = c.Strings("approve_tools")
	if c.Recording() || len(a.ApproveTools) == 0 {
		return
	}
	names := c.Strings("tools")
	if len(names) == 0 {
		c.Errorf("approve_tools", "approve_tools without tools: list the tools the model may call (tools: [ids])")
		return
	}
	for _, n := range a.ApproveTools {
		if n == "all" || slices.Contains(names, n) || strings.Contains(n, ".") {
			continue
		}
		hint := ""
		if m := load.Closest(n, names); m != "" {
			hint = fmt.Sprintf("; did you mean %q?", m)
		}
		c.Errorf("approve_tools", "approve_tools names %q, which is not one of the tools (%s) nor all%s", n, strings.Join(names, ", "), hint)
	}
}

// Answerer builds an answer agent for an agent type that asks a model as one
// part of its work (rag): c's model keys (provider, model, model_url,
// temperature, max_tokens, timeout, api_key, api_key_env, retry, params) are
// read as an LLM agent's, with provider defProvider and model defModel when c
// names none; tmpl and system are its prompts. Like every LLM agent it is
// answered by the run's models (--script) under its id.
func (o Options) Answerer(c *load.Config, id string, tmpl, system *prompt.Template, defProvider Provider, defModel string) *Agent {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.HTTPClient == nil {
		o.HTTPClient = DefaultHTTPClient()
	}
	a := &Agent{ID: id, Kind: Answer, UseRunModels: true, Prompt: tmpl, System: system}
	o.readModel(c, a, typeSpec{kind: Answer, defProvider: defProvider, defModel: defModel})
	return a
}

// readModel reads an LLM agent's model keys from c into a.
func (o Options) readModel(c *load.Config, a *Agent, t typeSpec) {
	// OrKa nests provider, model, model_url (and more) under params; the
	// top level wins when both are given.
	params := c.Map("params")
	from := func(key string) *load.Config {
		if params != nil && !c.Has(key) && params.Has(key) {
			return params
		}
		return c
	}

	var prov Provider
	goModel := o.Providers[strings.TrimSpace(from("provider").String("provider", ""))]
	if pc := from("provider"); goModel != nil {
		pc.Accept("provider")
	} else if pc.Has("provider") {
		p, err := ParseProvider(pc.String("provider", ""))
		switch {
		case err != nil:
			pc.Errorf("provider", "%v", err)
		case t.allowed != nil && !slices.Contains(t.allowed, p):
			pc.Errorf("provider", "%s takes provider %s, not %q (type llm takes any provider)", t.name, joinProviders(t.allowed), p)
		default:
			prov = p
		}
	} else if t.defProvider != "" {
		prov = t.defProvider
	} else {
		allowed := t.allowed
		if allowed == nil {
			allowed = Providers
		}
		c.Errorf("", "provider is required (%s)", joinProviders(allowed))
	}

	a.ModelName = from("model").String("model", t.defModel)

	var rawURL string
	urlCfg, urlKey := from("model_url"), "model_url"
	if !urlCfg.Has("model_url") {
		if uc := from("url"); uc.Has("url") {
			urlCfg, urlKey = uc, "url"
		}
	} else if urlCfg.Has("url") {
		urlCfg.Errorf("url", "url is an alias of model_url: give one of them")
	}
	rawURL = urlCfg.String(urlKey, "")

	a.Temperature = from("temperature").Float("temperature", defaultTemperature, 0, 2)
	a.MaxTokens = from("max_tokens").Int("max_tokens", 0, 0, 10_000_000)
	a.Timeout = from("timeout").Duration("timeout", DefaultTimeout)
	a.MaxReplyBytes = int64(from("max_reply_bytes").Int("max_reply_bytes", 0, 1, int(maxReplyBytesLimit)))

	if t.kind == Classification {
		oc, key := from("options"), "options"
		if !oc.Has("options") {
			if cc := from("categories"); cc.Has("categories") {
				oc, key = cc, "categories"
			}
		}
		for _, s := range oc.Strings(key) {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(a.Options, s) {
				a.Options = append(a.Options, s)
			}
		}
		if len(a.Options) == 0 {
			oc.Warnf(key, "no options (or categories): the agent can only answer %s (as in OrKa, the model is told to); give the list of classes to choose from", NotClassified)
		}
	}

	readSchema(c, params, a, t.name)
	c.Ignore(orkaIgnored...)

	mc := Config{Provider: prov, Model: a.ModelName, URL: rawURL, Getenv: o.Getenv, HTTPClient: o.HTTPClient}
	if c.Has("api_key") {
		mc.APIKey = secrets.New(c.String("api_key", ""))
		c.Warnf("api_key", "an API key in a workflow file is a secret in plain text; prefer the environment (%s), or name a variable with api_key_env", keyVarHint(prov))
	}
	mc.APIKeyEnv = strings.TrimSpace(c.String("api_key_env", ""))

	a.Retry = o.retrier(c)
	if params != nil {
		params.DoneLenient("(OrKa passes params on to the model call and drops the ones it does not know)")
	}

	if goModel != nil {
		a.Model = goModel
		return
	}
	if prov == "" {
		return
	}
	if a.ModelName == "" && prov != OpenAI {
		c.Errorf("", "model is required for provider %s", prov)
	}
	m, err := NewModel(mc)
	if err != nil {
		if rawURL != "" {
			urlCfg.Errorf(urlKey, "%v", err)
		} else {
			from("provider").Errorf("provider", "%v", err)
		}
		return
	}
	a.Model = m
}

func keyVarHint(p Provider) string {
	switch p {
	case Anthropic:
		return envAnthropicKey
	case GoogleAI:
		return envGoogleKey
	}
	return envOpenAIKey
}

func joinProviders(ps []Provider) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// scriptedFactory builds the scripted type: responses: [...] (or {cycle: [...]})
// answered one per call, in order, for each run separately. It renders its
// prompt so prompts show in traces, and ignores the run's models (--script).
func (o Options) scriptedFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Agent{ID: c.String("id", ""), Kind: Answer}
	a.Prompt = b.Template(c, "prompt")
	a.System = b.Template(c, "system_prompt")
	if n := c.Node("responses"); n == nil {
		c.Errorf("", "responses is required: the list of replies, one per call")
	} else {
		replies, cycle := scripted.ReadReplies(c.File(), n, c.What()+": responses", c.Problems())
		a.perRun = &runScripts{id: a.ID, replies: replies, cycle: cycle}
	}
	a.Timeout = c.Duration("timeout", DefaultTimeout)
	a.Retry = o.retrier(c)
	c.Ignore(orkaIgnored...)
	return a, nil
}

// runScripts gives each run of a scripted agent its own reply sequence (kept in
// the run's locals), so a workflow run twice answers the same way twice.
type runScripts struct {
	id      string
	replies []scripted.Reply
	cycle   bool

	mu    sync.Mutex
	noRun *scripted.Model
}

const scriptedSource = "its responses"

func (s *runScripts) model(run *agents.Run) *scripted.Model {
	if run == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.noRun == nil {
			s.noRun = scripted.New(s.id, scriptedSource, s.replies, s.cycle)
		}
		return s.noRun
	}
	return run.Local(s, func() any {
		return scripted.New(s.id, scriptedSource, s.replies, s.cycle)
	}).(*scripted.Model)
}
