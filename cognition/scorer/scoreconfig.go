package scorer

import (
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/metrics"
	"strings"
)

// Strategy types of score_extraction_config.strategies.
const (
	StrategyPattern    = "pattern"     // {patterns: [...]}: regexes over every agent's text
	StrategyDirectKey  = "direct_key"  // {key}: a numeric result (or field) named key
	StrategyAgentKey   = "agent_key"   // {agents: [...], key}: regexes over one field of listed agents
	StrategyNestedPath = "nested_path" // {path: a.b.c}: a dotted path from the iteration (agent id first) or inside each result
	StrategyJSON       = "json"        // {path: $.a.b, agents: [...]}: a path into the JSON object an agent answered with
)

// What else [Score.Strategy] can say about where a score came from.
const (
	StrategyBoolean         = "boolean"          // boolean_evaluations weighed by the metrics.BooleanScorer
	StrategyValidationScore = "validation_score" // a validator's validation_score
	StrategyHighPriority    = "high_priority"    // a high-priority agent's response
	StrategyGuard           = "guard"            // a high-priority agent was present but gave no score
	StrategyAgreement       = "agreement"        // mean cosine similarity of the responses
)

// DefaultPatterns returns OrKa's default score_extraction_config: one pattern
// strategy with these expressions, in this order. The slice is a copy.
func DefaultPatterns() []string { return append([]string(nil), defaultPatterns...) }

var defaultPatterns = []string{
	`score:\s*(\d+\.?\d*)`,
	`rating:\s*(\d+\.?\d*)`,
	`confidence:\s*(\d+\.?\d*)`,
	`agreement:\s*(\d+\.?\d*)`,
	`consensus:\s*(\d+\.?\d*)`,
	`AGREEMENT:\s*(\d+\.?\d*)`,
	`SCORE:\s*(\d+\.?\d*)`,
	`Score:\s*(\d+\.?\d*)`,
	`Agreement:\s*(\d+\.?\d*)`,
	`(\d+\.?\d*)/10`,
	`(\d+\.?\d*)%`,
	`(\d+\.?\d*)\s*out\s*of\s*10`,
	`(\d+\.?\d*)\s*points?`,
	`0\.[6-9][0-9]?`,
	`([0-9]+\.[0-9]+)`,
}

// DefaultHighPriorityAgents returns the agent ids checked before any strategy
// when the config names none. The slice is a copy.
func DefaultHighPriorityAgents() []string { return append([]string(nil), defaultHighPriorityAgents...) }

var defaultHighPriorityAgents = []string{"agreement_moderator", "quality_moderator", "score_moderator"}

// highPriorityPatterns are searched in a high-priority agent's response when no
// pattern strategy is configured.
var highPriorityPatterns = []string{
	`AGREEMENT_SCORE:\s*([0-9.]+)`,
	`Agreement Score:\s*([0-9.]+)`,
	`AGREEMENT_SCORE\s*([0-9.]+)`,
	`Score:\s*([0-9.]+)`,
	`SCORE:\s*([0-9.]+)`,
}

// agentKeyPatterns are searched by an agent_key strategy when no pattern
// strategy is configured.
var agentKeyPatterns = []string{
	`AGREEMENT_SCORE:\s*([0-9.]+)`,
	`Agreement Score:\s*([0-9.]+)`,
	`SCORE:\s*([0-9.]+)`,
	`Score:\s*([0-9.]+)`,
}

// Strategy is one entry of score_extraction_config.strategies.
type Strategy struct {
	Type     string   // a Strategy* constant
	Patterns []string // pattern: Python-syntax regexes, case-sensitive
	Key      string   // direct_key: required; agent_key: the field read (default "response")
	Path     string   // nested_path and json: the dotted path (required)
	Agents   []string // agent_key: the agent ids, in order; json: the agents read (none: all)
}

// ScoreConfig is the loop node's score configuration. The zero value is OrKa's
// default: the [DefaultPatterns], the [DefaultHighPriorityAgents], no boolean
// scoring, no agreement fallback.
type ScoreConfig struct {
	// Strategies is score_extraction_config.strategies. nil selects one pattern
	// strategy with DefaultPatterns; a non-nil empty slice means no strategy.
	Strategies []Strategy
	// AgreementFallback is score_extraction_config.agreement_fallback: when
	// nothing else scores, use the agents' mean pairwise embedding similarity
	// (needs an embedder, see [Scorer.ScoreContext]).
	AgreementFallback bool
	// HighPriorityAgents are checked first; nil selects DefaultHighPriorityAgents,
	// a non-nil empty slice none.
	HighPriorityAgents []string
	// ExtractionPattern and ExtractionKey are the deprecated
	// score_extraction_pattern and score_extraction_key (empty means unset). If
	// either is set they REPLACE Strategies and AgreementFallback with
	// [direct_key ExtractionKey, pattern [ExtractionPattern]] (direct_key first).
	ExtractionPattern string
	ExtractionKey     string
	// Boolean enables boolean scoring (OrKa: scoring.preset); nil disables it.
	Boolean metrics.BooleanScorer
	// Scale is score_scale: how a bare number is read (ScaleDefault, ScaleFraction,
	// ScaleTen or ScaleHundred). Explicit forms ("8/10", "85%") keep their meaning.
	Scale int
	// From is score_from: only these agents' results are read for a score (every
	// step of the ladder); nil reads every agent, in OrKa's order.
	From []string
	// Limits bound the regex work; zero fields take the defaults.
	cognition.Limits
}

// Scorer extracts one score from an iteration's results. It is built once from a
// [ScoreConfig], is immutable and is safe for concurrent use.
type Scorer struct {
	strategies   []strategy
	highPriority []string
	hpPatterns   []*cognition.Pattern
	akPatterns   []*cognition.Pattern
	boolean      metrics.BooleanScorer
	agreement    bool
	limits       cognition.Limits
	scale        int
	from         []string
	notes        []string
	lints        []*cognition.FieldError
	tried        []string // what the strategies read, for "no score" messages
}

type strategy struct {
	kind     string
	patterns []*cognition.Pattern
	key      string
	agents   []string
}

// NewScorer compiles every pattern and checks the strategies. All problems are
// returned together, joined with errors.Join, each a *[cognition.FieldError] whose Field is
// the YAML path below the loop node ("score_extraction_pattern",
// "score_extraction_config.strategies[1].patterns[0]") and whose cause is a
// *[cognition.PatternError] for a bad regex.
func NewScorer(cfg ScoreConfig) (*Scorer, error) {
	s := &Scorer{boolean: cfg.Boolean, agreement: cfg.AgreementFallback, limits: cfg.Limits.WithDefaults(),
		scale: cfg.Scale}
	if cfg.From != nil {
		s.from = append([]string{}, cfg.From...)
	}
	s.highPriority = cfg.HighPriorityAgents
	if s.highPriority == nil {
		s.highPriority = defaultHighPriorityAgents
	}
	s.highPriority = append([]string(nil), s.highPriority...)

	pc := &patternCompiler{s: s, opts: cognition.PatternOptions{Limits: s.limits}}
	switch cfg.Scale {
	case ScaleDefault, ScaleFraction, ScaleTen, ScaleHundred:
	default:
		pc.errs = append(pc.errs, &cognition.FieldError{Field: "score_scale", Err: fmt.Errorf("score_scale must be 1, 10 or 100, not %d", cfg.Scale)})
	}
	s.buildStrategies(cfg, pc)
	for _, st := range s.strategies {
		if st.kind == StrategyPattern {
			s.hpPatterns = append(s.hpPatterns, st.patterns...)
		}
	}
	s.akPatterns = s.hpPatterns
	pc.builtin = true
	if len(s.hpPatterns) == 0 {
		for _, expr := range highPriorityPatterns {
			s.hpPatterns = append(s.hpPatterns, pc.compile("built-in pattern", expr))
		}
		for _, expr := range agentKeyPatterns {
			s.akPatterns = append(s.akPatterns, pc.compile("built-in pattern", expr))
		}
	}
	if len(pc.errs) > 0 {
		return nil, errors.Join(pc.errs...)
	}
	s.tried = s.describe()
	return s, nil
}

// patternCompiler compiles a scorer's patterns, collecting their errors and,
// for patterns the user wrote (not builtin), their lints.
type patternCompiler struct {
	s       *Scorer
	opts    cognition.PatternOptions
	builtin bool
	errs    []error
}

func (pc *patternCompiler) compile(field, expr string) *cognition.Pattern {
	p, err := cognition.CompileOptions(expr, pc.opts)
	if err != nil {
		pc.errs = append(pc.errs, &cognition.FieldError{Field: field, Err: err})
	}
	if p != nil && !pc.builtin {
		for _, l := range p.Lint(true) {
			pc.s.lints = append(pc.s.lints, &cognition.FieldError{Field: field, Err: l})
		}
	}
	return p
}

// buildStrategies sets the scorer's strategies: the deprecated single
// pattern or key, the built-in patterns, or the configured strategies.
func (s *Scorer) buildStrategies(cfg ScoreConfig, pc *patternCompiler) {
	switch {
	case cfg.ExtractionPattern != "" || cfg.ExtractionKey != "":
		if cfg.Strategies != nil || cfg.AgreementFallback {
			s.notes = append(s.notes, "score_extraction_config is ignored: the deprecated score_extraction_pattern / score_extraction_key replace it")
		}
		s.agreement = false
		if cfg.ExtractionKey != "" {
			s.strategies = append(s.strategies, strategy{kind: StrategyDirectKey, key: cfg.ExtractionKey})
		}
		if cfg.ExtractionPattern != "" {
			if p := pc.compile("score_extraction_pattern", cfg.ExtractionPattern); p != nil {
				s.strategies = append(s.strategies, strategy{kind: StrategyPattern, patterns: []*cognition.Pattern{p}})
			}
		}
	case cfg.Strategies == nil:
		pc.builtin = true
		st := strategy{kind: StrategyPattern}
		for i, expr := range defaultPatterns {
			st.patterns = append(st.patterns, pc.compile(fmt.Sprintf("default pattern %d", i), expr))
		}
		s.strategies = []strategy{st}
	default:
		for i, c := range cfg.Strategies {
			field := fmt.Sprintf("score_extraction_config.strategies[%d]", i)
			st, err := buildStrategy(field, c, pc.compile)
			if err != nil {
				pc.errs = append(pc.errs, err)
				continue
			}
			s.strategies = append(s.strategies, st)
		}
	}
}

func buildStrategy(field string, c Strategy, compile func(field, expr string) *cognition.Pattern) (strategy, error) {
	st := strategy{kind: c.Type, key: c.Key, agents: append([]string(nil), c.Agents...)}
	switch c.Type {
	case StrategyPattern:
		if len(c.Patterns) == 0 {
			return st, &cognition.FieldError{Field: field + ".patterns", Err: errors.New("pattern strategy has no patterns")}
		}
		ok := true
		for j, expr := range c.Patterns {
			p := compile(fmt.Sprintf("%s.patterns[%d]", field, j), expr)
			ok = ok && p != nil
			st.patterns = append(st.patterns, p)
		}
		if !ok {
			return st, nil // the pattern errors are already collected
		}
	case StrategyDirectKey:
		if c.Key == "" {
			return st, &cognition.FieldError{Field: field + ".key", Err: errors.New("direct_key strategy has no key")}
		}
	case StrategyAgentKey:
		if len(c.Agents) == 0 {
			return st, &cognition.FieldError{Field: field + ".agents", Err: errors.New("agent_key strategy lists no agents")}
		}
		if st.key == "" {
			st.key = "response"
		}
	case StrategyNestedPath, StrategyJSON:
		st.key = strings.TrimSpace(c.Path)
		if len(splitJSONPath(st.key)) == 0 {
			return st, &cognition.FieldError{Field: field + ".path", Err: fmt.Errorf("%s strategy has no path (a dotted path such as scorer.response.score)", c.Type)}
		}
	default:
		return st, &cognition.FieldError{Field: field + ".type", Err: fmt.Errorf("unknown strategy type %q (want %s)", c.Type, strings.Join(StrategyTypes(), ", "))}
	}
	return st, nil
}

// StrategyTypes lists the strategy types of score_extraction_config.
func StrategyTypes() []string {
	return []string{StrategyPattern, StrategyDirectKey, StrategyAgentKey, StrategyNestedPath, StrategyJSON}
}

// Lints returns doubtful but valid parts of the configuration, each placed at
// its field like a build error: a group-less score pattern whose whole match
// cannot be a number, a pattern with nested quantifiers. The caller shows them
// as load warnings.
func (s *Scorer) Lints() []*cognition.FieldError {
	if s == nil {
		return nil
	}
	return append([]*cognition.FieldError(nil), s.lints...)
}

// Tried says what the scorer reads, for a "no score found" message: the
// high-priority agents, the patterns (the first few), keys and paths.
func (s *Scorer) Tried() string {
	if s == nil {
		return "no score configuration"
	}
	return strings.Join(s.tried, "; ")
}

func (s *Scorer) describe() []string {
	var out []string
	if s.boolean != nil {
		out = append(out, "boolean_evaluations")
	}
	for _, st := range s.strategies {
		switch st.kind {
		case StrategyPattern:
			out = append(out, describePatterns(st.patterns))
		case StrategyDirectKey:
			out = append(out, fmt.Sprintf("key %q", st.key))
		case StrategyAgentKey:
			out = append(out, fmt.Sprintf("field %q of %s", st.key, strings.Join(st.agents, ", ")))
		default:
			out = append(out, fmt.Sprintf("%s %q", st.kind, st.key))
		}
	}
	if s.from != nil {
		out = append(out, "only in "+strings.Join(s.from, ", ")+" (score_from)")
	}
	return out
}

func describePatterns(ps []*cognition.Pattern) string {
	if len(ps) == 1 {
		return fmt.Sprintf("pattern %q", ps[0].String())
	}
	const show = 2
	var b strings.Builder
	fmt.Fprintf(&b, "%d patterns (", len(ps))
	for i, p := range ps {
		if i == show {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", p.String())
	}
	b.WriteString(")")
	return b.String()
}

// Notes returns what the configuration silently overrides, for the caller to
// show as load warnings (for example score_extraction_config next to the
// deprecated score_extraction_pattern).
func (s *Scorer) Notes() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.notes...)
}
