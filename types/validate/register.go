package validate

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/scoring"
	"github.com/cogloop/cogloop/types/llm"
	"go.yaml.in/yaml/v3"
)

// Defaults of the YAML types (OrKa's).
const (
	DefaultLoopTemperature = 0.1
	DefaultPlanTemperature = 0.2
)

// Modes of loop_validator and the contexts they ask about.
const (
	ModeLoop = "loop" // loop_convergence criteria
	ModePath = "path" // graphscout criteria
)

// Options are what the validator types depend on.
type Options struct {
	// Options are the LLM dependencies (environment, HTTP client, retry timer).
	llm.Options
	// Presets is the catalog to use; nil means the builder's
	// ([agents.Builder.Presets]).
	Presets *scoring.Catalog
}

// Register adds loop_validator and plan_validator to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	o.Options = o.Options.WithDefaults()
	r.MustRegister("loop_validator", o.loopFactory)
	r.MustRegister("plan_validator", o.planFactory)
}

func (o Options) catalog(b *agents.Builder, c *load.Config) *scoring.Catalog {
	if o.Presets != nil {
		return o.Presets
	}
	cat, err := b.Presets()
	if err != nil {
		c.Errorf("", "%v", err)
		return nil
	}
	return cat
}

// modelKeys names the keys of one validator type's model settings; the first
// of each list is the documented one, the others aliases.
type modelKeys struct {
	model, provider, url []string
	warnModelAlias       bool
	temperature          float64
}

func (o Options) loopFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	cfg := LoopConfig{ID: c.String("id", "")}
	m, mok := o.readModel(c, modelKeys{
		model: []string{"llm_model", "model"}, provider: []string{"provider"}, url: []string{"model_url"},
		warnModelAlias: true, temperature: DefaultLoopTemperature,
	})
	cfg.ModelConfig = m
	level := c.String("scoring_preset", scoring.DefaultLevel)
	ctxName := loopContext(c)
	cfg.Target = readTarget(b, c)
	cfg.CustomPrompt = c.String("custom_prompt", "")
	if cfg.CustomPrompt != "" && !strings.Contains(cfg.CustomPrompt, "{content}") {
		c.Warnf("custom_prompt", "custom_prompt has no {content} placeholder: the content to evaluate is not sent to the model")
	}
	c.Ignore("prompt", "queue")

	cat := o.catalog(b, c)
	if cat == nil {
		return nil, nil
	}
	p, err := cat.Preset(ctxName, level)
	var le *scoring.LookupError
	switch {
	case errors.As(err, &le) && errors.Is(err, scoring.ErrUnknownContext):
		c.Errorf("mode", "unknown mode %q (loop, path, or a scoring context: %s)", ctxName, strings.Join(le.Known, ", "))
		return nil, nil
	case err != nil:
		c.Errorf("scoring_preset", "%v", err)
		return nil, nil
	}
	cfg.Preset = p
	if !mok {
		return nil, nil
	}
	v, err := NewLoopValidator(cfg)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// loopContext resolves mode and scoring_context to a catalog context:
// scoring_context containing "graph" or "path" means path mode, containing
// "loop" or "converge" loop mode; anything else keeps mode (OrKa's rule).
// Besides loop and path, mode may name any catalog context.
func loopContext(c *load.Config) string {
	mode := strings.ToLower(strings.TrimSpace(c.String("mode", ModeLoop)))
	if sc := strings.ToLower(c.String("scoring_context", "")); sc != "" {
		switch {
		case strings.Contains(sc, "graph") || strings.Contains(sc, "path"):
			mode = ModePath
		case strings.Contains(sc, "loop") || strings.Contains(sc, "converge"):
			mode = ModeLoop
		}
	}
	switch mode {
	case ModeLoop, "":
		return scoring.ContextLoopConvergence
	case ModePath:
		return scoring.ContextGraphScout
	}
	return mode
}

func (o Options) planFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	cfg := PlanConfig{ID: c.String("id", "")}
	m, mok := o.readModel(c, modelKeys{
		model: []string{"llm_model", "model"}, provider: []string{"llm_provider", "provider"},
		url: []string{"llm_url", "model_url", "url"}, temperature: DefaultPlanTemperature,
	})
	cfg.ModelConfig = m
	level := c.String("scoring_preset", scoring.DefaultLevel)
	ctxName := c.String("scoring_context", scoring.ContextGraphScout)
	custom, nodes := readWeights(c, "custom_weights")
	cfg.Target = readTarget(b, c)
	c.Ignore("prompt", "queue")

	cat := o.catalog(b, c)
	if cat == nil {
		return nil, nil
	}
	cfg.Catalog = cat
	p, err := cat.Preset(ctxName, level)
	if err != nil {
		key := "scoring_preset"
		if errors.Is(err, scoring.ErrUnknownContext) {
			key = "scoring_context"
		}
		c.Errorf(key, "%v", err)
		return nil, nil
	}
	calc, err := scoring.NewCalculator(p, custom)
	if err != nil {
		reportWeightErrors(c, "custom_weights", nodes, err)
		return nil, nil
	}
	cfg.Calculator = calc
	if !mok {
		return nil, nil
	}
	v, err := NewPlanValidator(cfg)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// readTarget reads evaluation_target; a target that names no agent of the
// workflow is a warning.
func readTarget(b *agents.Builder, c *load.Config) string {
	t := strings.TrimSpace(c.String("evaluation_target", ""))
	if t != "" {
		if _, defined := b.TypeOf(t); !defined {
			c.Warnf("evaluation_target", "evaluation_target %q names no agent of this workflow; the validator will evaluate its whole input", t)
		}
	}
	return t
}

// pick returns the first of keys present in c; two present is an error.
func pick(c *load.Config, keys []string) string {
	var found []string
	for _, k := range keys {
		if c.Has(k) {
			found = append(found, k)
		}
	}
	if len(found) > 1 {
		c.Errorf(found[1], "%s and %s are the same setting here: give one of them", found[0], found[1])
	}
	if len(found) == 0 {
		return ""
	}
	return found[0]
}

// readModel reads the model settings and builds the provider's model. ok is
// false when a problem was recorded.
func (o Options) readModel(c *load.Config, k modelKeys) (ModelConfig, bool) {
	m := ModelConfig{}
	probs := len(c.Problems().Errors())
	mk := pick(c, k.model)
	switch {
	case mk == "":
		c.Errorf("", "%s is required: the model that judges", k.model[0])
	case mk != k.model[0] && k.warnModelAlias:
		c.Warnf(mk, "%s is read as %s (OrKa's loop_validator only accepts %s)", mk, k.model[0], k.model[0])
	}
	if mk != "" {
		m.Name = strings.TrimSpace(c.String(mk, ""))
	}
	var prov llm.Provider
	pk := pick(c, k.provider)
	if pk == "" {
		c.Errorf("", "%s is required (%s)", k.provider[0], joinProviders())
	} else if p, err := llm.ParseProvider(c.String(pk, "")); err != nil {
		c.Errorf(pk, "%v", err)
	} else {
		prov = p
	}
	uk := pick(c, k.url)
	var rawURL string
	if uk != "" {
		rawURL = strings.TrimSpace(c.String(uk, ""))
	}
	m.Temperature = c.Float("temperature", k.temperature, 0, 2)
	m.MaxTokens = c.Int("max_tokens", 0, 0, 10_000_000)
	m.Timeout = c.Duration("timeout", llm.DefaultTimeout)
	m.Retry = retry.Retrier{Policy: retry.ReadPolicy(c, "retry", retry.DefaultLLM()),
		Sleep: o.Sleep, Rand: o.Rand, Logger: o.Logger}

	mc := llm.Config{Provider: prov, Model: m.Name, URL: rawURL, Getenv: o.Getenv, HTTPClient: o.HTTPClient}
	if c.Has("api_key") {
		mc.APIKey = secrets.New(c.String("api_key", ""))
		c.Warnf("api_key", "an API key in a workflow file is a secret in plain text; prefer the environment, or name a variable with api_key_env")
	}
	mc.APIKeyEnv = strings.TrimSpace(c.String("api_key_env", ""))
	if prov != "" && m.Name != "" {
		model, err := llm.NewModel(mc)
		if err != nil {
			key := pk
			if uk != "" {
				key = uk
			}
			c.Errorf(key, "%v", err)
		} else {
			m.Model = model
		}
	}
	return m, len(c.Problems().Errors()) == probs
}

func joinProviders() string {
	s := make([]string, len(llm.Providers))
	for i, p := range llm.Providers {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// readWeights reads a mapping of "dimension.criterion" → weight, recording
// values that are not numbers; it returns the weights and each key's node.
func readWeights(c *load.Config, key string) (map[string]float64, map[string]*yaml.Node) {
	n := c.Node(key)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		c.Errorf(key, "%s must be a mapping of dimension.criterion: weight, not %s", key, load.KindName(n))
		return nil, nil
	}
	out := map[string]float64{}
	nodes := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], load.Resolve(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			c.Problems().Errorf(c.PosOf(k), "%s: %s: key %q appears twice", c.What(), key, k.Value)
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			c.Problems().Errorf(c.PosOf(v), "%s: %s: the weight of %q must be a number, not %s", c.What(), key, k.Value, load.KindName(v))
			continue
		}
		out[k.Value] = f
		nodes[k.Value] = k
	}
	return out, nodes
}

// reportWeightErrors records the errors of [scoring.NewCalculator] on c: a
// *scoring.WeightError at its key's node (from nodes), anything else at key.
func reportWeightErrors(c *load.Config, key string, nodes map[string]*yaml.Node, err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var we *scoring.WeightError
		if errors.As(e, &we) {
			if n, ok := nodes[we.Key]; ok {
				c.Problems().Errorf(c.PosOf(n), "%s: %s: %v", c.What(), key, e)
				continue
			}
		}
		c.Errorf(key, "%v", e)
	}
}
