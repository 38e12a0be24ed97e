package orchestrator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/yamlbound"
	"github.com/cogloop/cogloop/scoring"
	"go.yaml.in/yaml/v3"
)

// Limits bound what a workflow file may cost to read.
type Limits struct {
	// MaxBytes caps the file size.
	MaxBytes int64
	// MaxNodes caps the YAML nodes: counted in the bytes before the tree is
	// built (so a huge flat list costs no heap), and again after alias
	// expansion (so a "billion laughs" file is refused before anything walks
	// it). yaml.v3 allocates about 330 bytes per node, so 100,000 nodes build
	// in about 33 MB, under the 64 MB a load may cost.
	MaxNodes int
}

// DefaultLimits are generous for hand-written and generated workflows alike.
var DefaultLimits = Limits{MaxBytes: 4 << 20, MaxNodes: 100_000}

// ReadFile reads a workflow file within limits.
func ReadFile(path string, lim Limits) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open workflow: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	data, err := io.ReadAll(io.LimitReader(f, lim.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read workflow %s: %w", path, err)
	}
	if int64(len(data)) > lim.MaxBytes {
		return nil, fmt.Errorf("%s: workflow file is larger than %d bytes; split it or raise the limit", path, lim.MaxBytes)
	}
	return data, nil
}

// parseYAML parses data into a document node within limits.
func parseYAML(data []byte, file string, lim Limits) (*yaml.Node, error) {
	if int64(len(data)) > lim.MaxBytes {
		return nil, fmt.Errorf("%s: workflow is larger than %d bytes; split it or raise the limit", file, lim.MaxBytes)
	}
	if err := yamlbound.Check(data, lim.MaxNodes); err != nil {
		var over *yamlbound.Over
		if errors.As(err, &over) {
			return nil, fmt.Errorf("%s:%d:1: workflow has %w", file, over.Line, err)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: workflow file is empty; it needs an orchestrator block and an agents list", file)
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%s:%d:%d: a workflow file holds one YAML document; remove the extra '---' document", file, extra.Line, extra.Column)
	}
	if n := yamlbound.ExpandedSize(&doc, lim.MaxNodes); n > lim.MaxNodes {
		return nil, fmt.Errorf("%s: YAML aliases expand to more than %d nodes; this looks like an alias bomb — use fewer nested aliases", file, lim.MaxNodes)
	}
	return &doc, nil
}

// yamlError gives a yaml.v3 syntax error its file position ("yaml: line 3: ..." →
// "file:3:1: invalid YAML: ..."; 1:1 without a line). yaml.v3 reports lines, not columns.
func yamlError(file string, err error) error {
	p := load.YAMLProblem(file, err)
	if p.Pos.Line == 0 {
		p.Pos.Line, p.Pos.Col = 1, 1
	}
	return fmt.Errorf("%s:%d:%d: invalid YAML: %s", file, p.Pos.Line, p.Pos.Col, p.Msg)
}

// Parse reads a workflow from data (file names it in messages) and builds it with
// reg. Every problem found is in the returned *load.Error; warnings come back
// even when building succeeds.
func Parse(data []byte, file string, reg *agents.Registry, opts ...Option) (*Workflow, []load.Problem, error) {
	o := options{limits: DefaultLimits}
	for _, fn := range opts {
		fn(&o)
	}
	doc, err := parseYAML(data, file, o.limits)
	if err != nil {
		return nil, nil, err
	}
	probs := &load.Problems{}
	b := &builder{file: file, reg: reg, probs: probs, opts: o,
		lines: map[string][][]byte{file: bytes.Split(data, []byte("\n"))}, stack: []string{absPath(file)}}
	w := b.workflow(load.Resolve(doc), "workflow", nil)
	w.all = b.ids
	w.loops = b.loopShapes()
	w.Sources = b.sources
	warnings := probs.Warnings()
	w.Notes = probs.Notes()
	w.Hints = probs.Hints() // advice in strict mode too
	if o.strict || w.Strict {
		// Strict: every warning and note is an error, reported with the others.
		for _, p := range append(warnings, w.Notes...) {
			probs.Errorf(p.Pos, "%s (an error under strict mode)", p.Msg)
		}
		warnings, w.Notes = nil, nil
		w.Strict = true
	}
	if err := probs.Err(); err != nil {
		return nil, warnings, err
	}
	return w, warnings, nil
}

// Load reads and builds the workflow file at path.
func Load(path string, reg *agents.Registry, opts ...Option) (*Workflow, []load.Problem, error) {
	o := options{limits: DefaultLimits}
	for _, fn := range opts {
		fn(&o)
	}
	data, err := ReadFile(path, o.limits)
	if err != nil {
		return nil, nil, err
	}
	return Parse(data, path, reg, opts...)
}

// Option adjusts loading.
type Option func(*options)

type options struct {
	limits  Limits
	presets *scoring.Catalog
	pricing spend.Pricing
	retrier retry.Retrier
	strict  bool
	servers ToolServerReader
}

// WithStrict loads as strict: true on the orchestrator does: every warning is
// an error, and runs treat run-time warnings as errors.
func WithStrict() Option { return func(o *options) { o.strict = true } }

// WithPricing builds with p as the base pricing table instead of
// [spend.DefaultPricing]; a pricing: on the orchestrator adds to it.
func WithPricing(p spend.Pricing) Option { return func(o *options) { o.pricing = p } }

// WithRetrier runs the retry policies the builder applies (retry: on agents
// that do not retry by themselves) with r's Sleep, Rand, Now and Logger; r's
// Policy is ignored. Tests put a fake clock here.
func WithRetrier(r retry.Retrier) Option { return func(o *options) { o.retrier = r } }

// WithPresets builds with the scoring presets of cat (instead of
// scoring.Default); a presets_dir on the orchestrator adds to it.
func WithPresets(cat *scoring.Catalog) Option { return func(o *options) { o.presets = cat } }

// WithLimits replaces [DefaultLimits].
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }
