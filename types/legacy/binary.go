package legacy

import (
	"context"
	"regexp"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Deprecated is the classification type's only answer (OrKa's since 0.5.6).
const Deprecated = "deprecated"

// maxMatch caps how much of the input the binary type searches.
const maxMatch = 64 << 10

var positive = regexp.MustCompile(`(?i)\b(yes|true|correct)\b`)

// Binary is OrKa's rule-based binary agent: its response is true when the
// workflow input contains yes, true or correct as a whole word, in any case.
// Unlike OrKa (a substring test), "incorrect" does not count. It calls no model;
// its prompt is rendered for the trace only.
type Binary struct {
	Prompt *prompt.Template
}

// Classification is OrKa's deprecated rule-based classification agent: its
// response is always [Deprecated].
type Classification struct {
	Prompt *prompt.Template
}

var (
	_ agents.Agent = (*Binary)(nil)
	_ agents.Agent = (*Classification)(nil)
)

func binaryFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Binary{Prompt: b.Template(c, "prompt")}
	c.Warnf("type", "type binary is OrKa's rule-based agent: it answers true when the input contains yes, true or correct, and calls no model (use openai-binary for a model's judgement)")
	c.Ignore("queue")
	return a, nil
}

func classificationFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Classification{Prompt: b.Template(c, "prompt")}
	c.Warnf("type", "type classification is deprecated in OrKa: it always answers %q and calls no model (use openai-classification with options)", Deprecated)
	c.Ignore("queue", "options", "categories")
	return a, nil
}

// Run answers whether the input affirms.
func (a *Binary) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	p, err := in.Render(a.Prompt)
	if err != nil {
		return agents.Output{}, err
	}
	text := agents.Text(in.Value)
	if len(text) > maxMatch {
		text = text[:maxMatch]
	}
	return agents.Output{Response: positive.MatchString(text), Prompt: p}, nil
}

// Run answers [Deprecated].
func (a *Classification) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	p, err := in.Render(a.Prompt)
	if err != nil {
		return agents.Output{}, err
	}
	return agents.Output{Response: Deprecated, Prompt: p}, nil
}
