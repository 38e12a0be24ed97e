package loopnode

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/scoring"
	"go.yaml.in/yaml/v3"
)

// Register adds the loop type to r.
func Register(r *agents.Registry) {
	r.MustRegister("loop", New)
}

// New builds a loop from its definition (the registry's factory for type:
// loop): it reads the definition into a [Config], reporting problems at their
// file:line:col, and builds the loop with [NewLoop].
func New(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	cfg := readConfig(b, c)
	if cfg.Body == nil {
		return nil, nil
	}
	built, err := NewLoop(cfg)
	if err != nil {
		c.Errorf("", "%v", err)
		return nil, nil
	}
	built.checkRefs(c)
	built.noteExits(c)
	built.checkConditionNames(c) // names.go
	return built, nil
}

// readConfig reads a loop definition into a Config. The settings whose
// errors need file:line:col at run time or at load (stop_when, vars, update,
// the mappings, inputs) it compiles itself into the Config's YAML parts, the
// way [NewLoop] compiles their Go fields; the draft node n holds what those
// readers consult while reading. [NewLoop] builds the loop itself.
func readConfig(b *agents.Builder, c *load.Config) Config {
	cfg := Config{ID: idOf(c)}
	n := &Node{id: cfg.ID}
	y := &yamlParts{}
	cfg.yaml = y
	readBounds(c, &cfg)
	cfg.Feedback = readFeedback(c)
	y.inputs = readInputMappings(c)
	y.outputs = readOutputMappings(c)
	n.inputs, n.outputs = y.inputs, y.outputs
	switch r := c.String("return", ReturnLast); r {
	case ReturnLast, ReturnBest, ReturnLastSuccessful:
		cfg.Return = r
	default:
		c.Errorf("return", "return must be last, best or last_successful, not %q", r)
	}
	n.best = cfg.Return == ReturnBest
	y.stop = readStopWhen(c, cfg.Threshold)
	n.stop = y.stop
	cfg.StopOnError, cfg.MaxFailedPasses = readErrorPolicy(c)
	if l, ok := b.Budget(c, "budget"); ok {
		cfg.Budget = &l
	}
	if c.Has("retry") {
		// The loop reads retry: itself (so the builder does not wrap it): a
		// failed pass runs again under the policy.
		if p := retry.ReadPolicy(c, "retry", retry.DefaultAgent()); p.Type != retry.None && p.Count > 0 {
			cfg.Retry = &retry.Retrier{Policy: p}
		}
	}
	cfg.OutputAgent = c.String("output_agent", "")
	c.Ignore("prompt", "queue", "fallback_score", "timeout_score")
	readPersistence(c, &cfg)

	y.scorer = buildScorer(b, c, &cfg.ScoringContext)
	n.scorer = y.scorer
	y.scoreMatters = scoreMatters(c, n)
	y.extractor = buildExtractor(c)
	cfg.RegexBudget = c.Duration("regex_budget", cognition.DefaultPassBudget)
	if c.Has("regex_budget") && cfg.RegexBudget <= 0 {
		c.Errorf("regex_budget", "regex_budget must be above zero (default %v): it bounds the regex time of one pass", cognition.DefaultPassBudget)
		cfg.RegexBudget = cognition.DefaultPassBudget
	}
	y.metas = buildMetadata(b, c)

	y.vars = readVars(c, n.reservedVars())
	n.vars = y.vars
	y.updates = readUpdates(c, n.varNames())
	y.declared = readDeclaredInputs(c)
	cfg.Outputs = readDeclaredOutputs(c, n)
	checkVarMappings(c, n)
	cfg.FailOn = readFailOn(c)

	if c.Has("workflow_ref") {
		cfg.Body = buildRef(b, c)
	} else if iw := c.Node("internal_workflow"); iw == nil {
		c.Errorf("", "missing internal_workflow: the workflow each iteration runs ({orchestrator: {...}, agents: [...]}), or workflow_ref: FILE")
	} else {
		inner, err := b.Workflow(iw, "loop "+strconv.Quote(cfg.ID)+": internal_workflow")
		if err != nil {
			c.Errorf("internal_workflow", "%v", err)
		}
		cfg.Body = inner
		n.hintScoreSources(c, iw) // scorehint.go
	}
	return cfg
}

// readBounds reads the keys that bound the loop: max_loops (max_iterations),
// score_threshold, max_past_loops, past_loops_budget, timeout,
// iteration_timeout, delay and max_length.
func readBounds(c *load.Config, cfg *Config) {
	if !c.Has("max_loops") && !c.Has("max_iterations") {
		c.Problems().Notef(c.Pos(), "%s: no max_loops: the loop runs at most 5 passes (OrKa's default); write max_loops: N (or max_iterations) to say so — strict mode requires it", c.What())
	}
	cfg.MaxLoops = c.Int("max_loops", 5, 1, 1000)
	if c.Has("max_iterations") {
		if c.Has("max_loops") {
			c.Errorf("max_iterations", "max_iterations is another name for max_loops; give one of them")
		}
		cfg.MaxLoops = c.Int("max_iterations", 5, 1, 1000)
	}
	cfg.Threshold = c.Float("score_threshold", 0.8, 0, 1)
	cfg.MaxPastLoops = c.Int("max_past_loops", 20, 1, 1000)
	hb := readHistoryBudget(c)
	cfg.PastLoopsBudget, cfg.PastLoopsKeep = hb.maxTokens, hb.keep
	cfg.Timeout = readTimeout(c)
	if cfg.Timeout > maxTimeout {
		c.Errorf("timeout", "timeout must be at most 24h, not %s", cfg.Timeout)
		cfg.Timeout = maxTimeout
	}
	cfg.Delay = c.Duration("delay", 0)
	cfg.IterationTimeout = c.Duration("iteration_timeout", 0)
	switch {
	case c.Has("iteration_timeout") && cfg.IterationTimeout <= 0:
		c.Errorf("iteration_timeout", "iteration_timeout must be above zero (e.g. 30s): it bounds the time of one pass")
	case cfg.IterationTimeout > maxTimeout:
		c.Errorf("iteration_timeout", "iteration_timeout must be at most 24h, not %s", cfg.IterationTimeout)
	case cfg.Timeout > 0 && cfg.IterationTimeout > cfg.Timeout:
		c.Warnf("iteration_timeout", "iteration_timeout %s is longer than the loop's timeout %s, so it never applies", cfg.IterationTimeout, cfg.Timeout)
	}
	cfg.IterationTimeout = min(max(cfg.IterationTimeout, 0), maxTimeout)
	cfg.Delay = max(cfg.Delay, 0)
	cfg.MaxLength = c.Int("max_length", DefaultMaxLength, 1, 1<<20)
}

// readPersistence reads persist_across_runs, history_ttl and history_key.
func readPersistence(c *load.Config, cfg *Config) {
	cfg.Persist = c.Bool("persist_across_runs", false)
	cfg.HistoryTTL = c.Duration("history_ttl", 0)
	cfg.HistoryKey = readHistoryKey(c, cfg.Persist)
	if cfg.HistoryTTL > 0 && !cfg.Persist {
		c.Warnf("history_ttl", "history_ttl has no effect without persist_across_runs: true")
	}
	cfg.HistoryTTL = max(cfg.HistoryTTL, 0)
}

// checkRefs reports conditions and mappings that name no agent of the internal
// workflow, when the workflow can tell.
func (n *Node) checkRefs(c *load.Config) {
	d, ok := n.inner.(interface{ Defines(id string) bool })
	if !ok {
		return
	}
	check := func(what, id string, pos load.Pos) {
		if id != "" && !d.Defines(id) {
			c.Problems().Errorf(pos, "%s: %s names %q, which the internal workflow does not define", c.What(), what, id)
		}
	}
	n.stop.refs(func(id string, pos load.Pos) { check("stop_when", id, pos) })
	for _, m := range n.inputs {
		check("input_mappings", m.node, m.pos)
	}
	for _, m := range n.outputs {
		check("output_mappings", m.node, m.pos)
	}
	check("output_agent", n.outputAgent, c.ValuePos("output_agent"))
	if from := c.Node("score_from"); from != nil && from.Kind == yaml.SequenceNode {
		for _, it := range from.Content {
			check("score_from", load.Resolve(it).Value, c.PosOf(it))
		}
	} else if from != nil && from.Kind == yaml.ScalarNode {
		check("score_from", from.Value, c.PosOf(from))
	}
}

// buildRef reads workflow_ref: the internal workflow from another file,
// relative to this one, built by the same builder.
func buildRef(b *agents.Builder, c *load.Config) agents.Agent {
	if c.Has("internal_workflow") {
		c.Errorf("workflow_ref", "give internal_workflow or workflow_ref, not both")
		return nil
	}
	path := c.String("workflow_ref", "")
	inner, err := b.WorkflowFile(path, c.ValuePos("workflow_ref"), "loop "+strconv.Quote(idOf(c))+": workflow_ref")
	if err != nil {
		c.Errorf("workflow_ref", "%v", err)
		return nil
	}
	return inner
}

func idOf(c *load.Config) string { return c.String("id", "") }

const maxTimeout = 24 * time.Hour

// buildScorer reads the score extraction keys (§1.1, §1.5).
func buildScorer(b *agents.Builder, c *load.Config, scoringCtx *string) *scorer.Scorer {
	cfg := scorer.ScoreConfig{
		ExtractionPattern: c.String("score_extraction_pattern", ""),
		ExtractionKey:     c.String("score_extraction_key", ""),
	}
	if c.Has("high_priority_agents") {
		cfg.HighPriorityAgents = append([]string{}, c.Strings("high_priority_agents")...)
	}
	if c.Has("score_scale") {
		cfg.Scale = c.Int("score_scale", 0, 1, 100)
	}
	if c.Has("score_from") {
		cfg.From = append([]string{}, c.Strings("score_from")...)
		if len(cfg.From) == 0 {
			c.Errorf("score_from", "score_from lists no agent: name the agents whose output holds the score, or leave the key out")
		}
	}
	if sc := c.Map("score_extraction_config"); sc != nil {
		cfg.AgreementFallback = sc.Bool("agreement_fallback", false)
		if sc.Has("strategies") {
			cfg.Strategies = readStrategies(sc)
		}
		sc.Done()
	}
	if sc := c.Map("scoring"); sc != nil {
		cfg.Boolean, *scoringCtx = buildBoolean(b, c, sc)
	}
	s, err := scorer.NewScorer(cfg)
	if err != nil {
		reportFieldErrors(c, err, false)
		return nil
	}
	for _, note := range s.Notes() {
		c.Warnf("score_extraction_config", "%s", note)
	}
	for _, l := range s.Lints() {
		reportFieldErrors(c, l, true)
	}
	return s
}

func readStrategies(sc *load.Config) []scorer.Strategy {
	list := sc.Node("strategies")
	if list.Kind != yaml.SequenceNode {
		sc.Errorf("strategies", "strategies must be a list of {type: %s, ...}", strings.Join(scorer.StrategyTypes(), "|"))
		return nil
	}
	out := []scorer.Strategy{}
	for _, item := range list.Content {
		st := load.NewConfig(sc.File(), item, sc.What()+": strategy", sc.Problems())
		s := scorer.Strategy{Type: st.String("type", "")}
		switch s.Type {
		case scorer.StrategyPattern:
			s.Patterns = st.Strings("patterns")
		case scorer.StrategyDirectKey:
			s.Key = st.String("key", "")
		case scorer.StrategyAgentKey:
			s.Agents = st.Strings("agents")
			s.Key = st.String("key", "response")
			st.Ignore("transform")
		case scorer.StrategyNestedPath:
			s.Path = st.String("path", "")
		case scorer.StrategyJSON:
			// OrKa's files write json_path: "$.safety_score".
			s.Path = st.String("path", "")
			if p := st.String("json_path", ""); p != "" {
				if s.Path != "" {
					st.Errorf("json_path", "give path or json_path, not both")
				}
				s.Path = p
			}
			s.Agents = st.Strings("agents")
		case "":
			st.Errorf("", "missing type (%s)", strings.Join(scorer.StrategyTypes(), ", "))
		default:
			st.Errorf("type", "unknown strategy type %q (%s)", s.Type, strings.Join(scorer.StrategyTypes(), ", "))
		}
		st.Done()
		out = append(out, s)
	}
	return out
}

// buildExtractor reads cognitive_extraction (§1.9).
func buildExtractor(c *load.Config) *cognition.Extractor {
	var cfg cognition.ExtractConfig
	if ce := c.Map("cognitive_extraction"); ce != nil {
		cfg.Disabled = !ce.Bool("enabled", true)
		cfg.MaxLengthPerCategory = ce.Int("max_length_per_category", cognition.DefaultMaxLengthPerCategory, 1, 1<<20)
		if ep := ce.Map("extract_patterns"); ep != nil {
			cfg.Patterns = cognition.ExtractPatterns{
				Insights:     ep.Strings(cognition.CategoryInsights),
				Improvements: ep.Strings(cognition.CategoryImprovements),
				Mistakes:     ep.Strings(cognition.CategoryMistakes),
			}
			cfg.Patterns.Other = otherCategories(ep)
			noteUnboundedLessons(c, ce, cfg.Patterns)
			ep.Done()
		}
		ce.Ignore("agent_priorities")
		ce.Done()
	}
	e, err := cognition.NewExtractor(cfg)
	if err != nil {
		reportFieldErrors(c, err, false)
		return nil
	}
	for _, l := range e.Lints() {
		reportFieldErrors(c, l, true)
	}
	return e
}

// noteUnboundedLessons notes a lesson pattern that ends in (.+) or (.*)
// without a line end: under OrKa's DOTALL it takes the rest of the reply (the
// critic's next lines and its SCORE:) into the next prompt.
func noteUnboundedLessons(c, ce *load.Config, p cognition.ExtractPatterns) {
	lists := [][]string{p.Insights, p.Improvements, p.Mistakes}
	for _, o := range p.Other {
		lists = append(lists, o.Patterns)
	}
	for _, list := range lists {
		for _, pat := range list {
			trimmed := strings.TrimSuffix(pat, "$")
			if strings.HasSuffix(trimmed, "(.+)") || strings.HasSuffix(trimmed, "(.*)") {
				c.Problems().Notef(ce.ValuePos("extract_patterns"), "%s: cognitive_extraction: pattern %q ends in an unbounded group: patterns run DOTALL (OrKa), so it takes the rest of the reply, later lines and SCORE: too; end it at the line: (.+?)(?:\\n|$) or ([^\\n]+)", c.What(), pat)
			}
		}
	}
}

// otherCategories reads extract_patterns categories beyond insights,
// improvements and mistakes: each is extracted like them and stored in
// past_loops under its own name (OrKa drops them).
func otherCategories(ep *load.Config) []cognition.Category {
	var out []cognition.Category
	for _, k := range ep.Keys() {
		if ep.Known(k) {
			continue
		}
		if _, taken := entryVars[k]; taken {
			ep.Strings(k)
			ep.Errorf(k, "category %q would overwrite the past_loops field of that name; rename it", k)
			continue
		}
		out = append(out, cognition.Category{Name: k, Patterns: ep.Strings(k)})
	}
	return out
}

// buildMetadata parses past_loops_metadata templates at load time; a user map
// replaces OrKa's default map.
func buildMetadata(b *agents.Builder, c *load.Config) []metaTemplate {
	var out []metaTemplate
	if m := c.Map("past_loops_metadata"); m != nil && len(m.Keys()) > 0 {
		for _, k := range m.Keys() {
			if t := b.Template(m, k); t != nil {
				out = append(out, newMeta(k, t))
			}
		}
		m.Done()
		return out
	}
	for _, k := range defaultMetadataKeys {
		t, err := prompt.Parse("past_loops_metadata."+k, "{{ "+k+" }}", prompt.Options{})
		if err != nil {
			c.Errorf("past_loops_metadata", "%v", err)
			continue
		}
		out = append(out, newMeta(k, t))
	}
	return out
}

// buildBoolean reads scoring: {preset, context, custom_weights} (§1.5 step 1): the
// preset weighs the agents' boolean_evaluations; without context the criteria are
// loop_convergence (cogloop's decision, OrKa falls back to graphscout). It
// returns the calculator (nil when boolean scoring is off) and the context name
// the iterations see as scoring_context.
func buildBoolean(b *agents.Builder, c *load.Config, s *load.Config) (boolean metrics.BooleanScorer, scoringCtx string) {
	// Boolean scoring (§1.5 step 1): the preset weighs the agents'
	// boolean_evaluations; without context the criteria are
	// loop_convergence (cogloop's decision, OrKa falls back to graphscout).
	preset := strings.TrimSpace(s.String("preset", ""))
	context := strings.TrimSpace(s.String("context", ""))
	custom, keyNodes := readCustomWeights(c, s)
	s.Ignore("mode")
	s.Done()
	cat, err := b.Presets()
	if err == nil && context == "" && preset != "" && len(custom) > 0 {
		context = inferContext(s, cat, preset, custom)
	}
	switch {
	case err != nil:
		s.Errorf("", "%v", err)
	case preset == "":
		if _, err := cat.Context(context); err != nil {
			s.Errorf("context", "%v", err)
			break
		}
		s.Warnf("", "scoring has no preset, so boolean scoring is off (preset: %s)", strings.Join(cat.Levels(context), ", "))
	default:
		calc, err := cat.Calculator(context, preset, custom)
		reportCalculatorErrors(c, s, err, keyNodes)
		if calc != nil {
			boolean = calc
		}
	}

	name := context
	if name == "" {
		name = scoring.DefaultContext
	}
	return boolean, name
}

// readCustomWeights reads scoring's custom_weights: {dimension.criterion:
// weight}, and the key nodes, for the positions of later errors.
func readCustomWeights(c, s *load.Config) (map[string]float64, map[string]*yaml.Node) {
	custom, keyNodes := map[string]float64{}, map[string]*yaml.Node{}
	w := s.Node("custom_weights")
	if w == nil || w.Tag == "!!null" {
		return custom, keyNodes
	}
	if w.Kind != yaml.MappingNode {
		s.Errorf("custom_weights", "custom_weights must be a mapping of dimension.criterion: weight, not %s", load.KindName(w))
		return custom, keyNodes
	}
	for i := 0; i+1 < len(w.Content); i += 2 {
		k, v := w.Content[i], load.Resolve(w.Content[i+1])
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
		if _, dup := keyNodes[k.Value]; dup || v.Kind != yaml.ScalarNode || err != nil {
			c.Problems().Errorf(c.PosOf(v), "%s: custom_weights: the weight of %q must be one number, not %s", s.What(), k.Value, load.KindName(v))
			continue
		}
		custom[k.Value], keyNodes[k.Value] = f, k
	}
	return custom, keyNodes
}

// reportCalculatorErrors places the errors of a preset's calculator: an
// unknown context or preset at its key, a bad weight at its criterion.
func reportCalculatorErrors(c, s *load.Config, err error, keyNodes map[string]*yaml.Node) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var we *scoring.WeightError
		switch {
		case e == nil:
		case errors.Is(e, scoring.ErrUnknownContext):
			s.Errorf("context", "%v", e)
		case errors.Is(e, scoring.ErrUnknownPreset):
			s.Errorf("preset", "%v", e)
		case errors.As(e, &we) && keyNodes[we.Key] != nil:
			c.Problems().Errorf(c.PosOf(keyNodes[we.Key]), "%s: custom_weights: %v", s.What(), e)
		default:
			s.Errorf("custom_weights", "%v", e)
		}
	}
}

// inferContext picks the context of a scoring block without one: the default
// (loop_convergence, cogloop's decision) when the custom_weights fit it, else
// the one context whose preset has every weighted criterion, with a warning
// (OrKa falls back to graphscout and its files rely on it). "" keeps the
// default, whose errors then name the criteria that do not fit.
func inferContext(s *load.Config, cat *scoring.Catalog, preset string, custom map[string]float64) string {
	keys := make([]string, 0, len(custom))
	for k := range custom {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fits := cat.ContextsWith(preset, keys)
	for _, name := range fits {
		if name == scoring.DefaultContext {
			return ""
		}
	}
	if len(fits) != 1 {
		return ""
	}
	s.Warnf("custom_weights", "scoring has no context and its custom_weights (%s) are criteria of %s, not of %s: using context %s; write context: %s to say so",
		strings.Join(keys, ", "), fits[0], scoring.DefaultContext, fits[0], fits[0])
	return fits[0]
}

// reportFieldErrors places cognition's field errors at their YAML positions, as
// errors or (warn) as warnings.
func reportFieldErrors(c *load.Config, err error, warn bool) {
	report := c.Problems().Errorf
	if warn {
		report = c.Problems().Warnf
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var fe *cognition.FieldError
		if errors.As(e, &fe) {
			root := strings.SplitN(fe.Field, ".", 2)[0]
			root = strings.SplitN(root, "[", 2)[0]
			n := nodeAt(c.Node(root), fe.Field[len(root):])
			report(c.PosOf(n), "%s: %s: %v", c.What(), fe.Field, fe.Err)
			continue
		}
		report(c.Pos(), "%s: %v", c.What(), e)
	}
}

var pathPart = regexp.MustCompile(`\.([A-Za-z0-9_]+)|\[(\d+)\]`)

// nodeAt walks a field path (".strategies[1].patterns[0]") below n, stopping at
// the deepest node it can reach.
func nodeAt(n *yaml.Node, path string) *yaml.Node {
	for _, m := range pathPart.FindAllStringSubmatch(path, -1) {
		n = load.Resolve(n)
		if n == nil {
			return nil
		}
		var next *yaml.Node
		if m[1] != "" && n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == m[1] {
					next = n.Content[i+1]
				}
			}
		}
		if m[2] != "" && n.Kind == yaml.SequenceNode {
			if i, _ := strconv.Atoi(m[2]); i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}
