package spend

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/configs"
	"go.yaml.in/yaml/v3"
)

// Price is what a model charges per 1,000 tokens, in the pricing's currency
// (US dollars in the built-in table).
type Price struct {
	Prompt     float64 // per 1k prompt (input) tokens
	Completion float64 // per 1k completion (output) tokens
}

// Cost is what u costs at p.
func (p Price) Cost(u Usage) float64 {
	return float64(u.PromptTokens)/1000*p.Prompt + float64(u.CompletionTokens)/1000*p.Completion
}

// Pricing maps model names to prices. It is data: build one as a literal, with
// [ParsePricing] or [ReadPricing], or start from [DefaultPricing]. Treat it as
// immutable once a run uses it; [Pricing.With] returns a new table.
type Pricing map[string]Price

// Price returns the price of model: the entry with exactly that name, else one
// whose name differs only in case.
func (p Pricing) Price(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	for name, pr := range p {
		if strings.EqualFold(name, model) {
			return pr, true
		}
	}
	return Price{}, false
}

// Cost returns what u costs for model. An empty model name is free (scripted
// replies: no model is called); ok is false when model has no price.
func (p Pricing) Cost(model string, u Usage) (cost float64, ok bool) {
	if model == "" {
		return 0, true
	}
	pr, ok := p.Price(model)
	if !ok {
		return 0, false
	}
	return pr.Cost(u), true
}

// With returns a new table: p's entries, overridden and added to by q's.
func (p Pricing) With(q Pricing) Pricing {
	out := make(Pricing, len(p)+len(q))
	maps.Copy(out, p)
	for name, pr := range q {
		for old := range out {
			if strings.EqualFold(old, name) {
				delete(out, old)
			}
		}
		out[name] = pr
	}
	return out
}

// Models lists the priced model names, sorted.
func (p Pricing) Models() []string {
	out := make([]string, 0, len(p))
	for m := range p {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

var defaultPricing = sync.OnceValue(func() Pricing {
	p, err := ParsePricing(configs.Pricing, "configs/pricing.yaml")
	if err != nil {
		panic(fmt.Sprintf("the built-in pricing table is broken: %v", err))
	}
	return p
})

// DefaultPricing returns a copy of the built-in pricing table
// (configs/pricing.yaml: hosted models' list prices with the date they were
// checked). Workflows override it with pricing: on their orchestrator.
func DefaultPricing() Pricing { return maps.Clone(defaultPricing()) }

// ParsePricing reads a pricing file: a YAML mapping from model name to
// {prompt, completion}, the price per 1,000 tokens (input and output are
// accepted for prompt and completion). Every problem is reported, with
// file:line:col, in one *[load.Error].
func ParsePricing(data []byte, file string) (Pricing, error) {
	probs := &load.Problems{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p := load.YAMLProblem(file, err)
		probs.Errorf(p.Pos, "pricing: %s", p.Msg)
		return nil, probs.Err()
	}
	var root *yaml.Node
	if doc.Kind != 0 {
		root = load.Resolve(&doc)
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		return Pricing{}, nil
	}
	p := ReadPricing(file, root, "pricing", probs)
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// ReadPricing reads a pricing table from node (a mapping model → {prompt,
// completion} per 1,000 tokens), recording every problem with its position on
// probs; what names the table in messages. Entries with problems are left out.
func ReadPricing(file string, node *yaml.Node, what string, probs *load.Problems) Pricing {
	c := load.NewConfig(file, node, what, probs)
	out := Pricing{}
	seen := map[string]string{}
	for _, model := range c.Keys() {
		v := c.Node(model)
		if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
			c.Errorf(model, "the price of %q must be a mapping {prompt, completion} (per 1k tokens), not null", model)
			continue
		}
		mc := load.NewConfig(file, v, fmt.Sprintf("%s: model %q", what, model), probs)
		if v.Kind != yaml.MappingNode {
			continue
		}
		if strings.TrimSpace(model) == "" {
			c.Errorf(model, "a model name must not be empty")
			continue
		}
		if first, dup := seen[strings.ToLower(model)]; dup {
			c.Errorf(model, "model %q is priced twice (also as %q); names are matched without regard to case", model, first)
			continue
		}
		seen[strings.ToLower(model)] = model
		before := len(probs.Errors())
		prompt, okP := readPrice(mc, "prompt", "input")
		completion, okC := readPrice(mc, "completion", "output")
		mc.Done()
		if !okP || !okC || len(probs.Errors()) > before {
			continue
		}
		out[model] = Price{Prompt: prompt, Completion: completion}
	}
	c.Done()
	return out
}

// readPrice reads key (or its alias) as a price per 1k tokens.
func readPrice(c *load.Config, key, alias string) (float64, bool) {
	has, hasAlias := c.Has(key), c.Has(alias)
	switch {
	case has && hasAlias:
		c.Errorf(alias, "%s is an alias of %s: give one of them", alias, key)
		return 0, false
	case hasAlias:
		key = alias
	case !has:
		c.Errorf("", "%s is required: the price per 1,000 %s tokens", key, key)
		return 0, false
	}
	v := c.Node(key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		c.Errorf(key, "%s must be a price per 1,000 tokens (a number, 0 or more)", key)
		return 0, false
	}
	before := len(c.Problems().Errors())
	f := c.Float(key, -1, -math.MaxFloat64, math.MaxFloat64)
	switch {
	case len(c.Problems().Errors()) > before:
		return 0, false
	case f < 0:
		c.Errorf(key, "%s must not be negative, not %g", key, f)
		return 0, false
	}
	return f, true
}
