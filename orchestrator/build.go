package orchestrator

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/scoring"
	"go.yaml.in/yaml/v3"
)

// builder holds what every workflow of one file shares while it is built.
type builder struct {
	file  string
	reg   *agents.Registry
	probs *load.Problems
	lines map[string][][]byte // each file's lines, for template positions
	opts  options
	// refs.go: the files being built, outermost first (reference cycles), and
	// every file referenced with workflow_ref, for the digest.
	stack    []string
	sources  []Source
	refBytes int64 // bytes and YAML nodes of the referenced files so far
	refNodes int
	// pricing is the file's table: the base (built-in, or WithPricing) with
	// the top-level orchestrator's pricing: on top.
	pricing spend.Pricing
	// budgets are every budget of the file (workflows' and loops'), and models
	// the first use of each model, for the price check at the end of the load.
	budgets []spend.Limit
	models  []modelUse
	// ids are the agent ids of every workflow of the file, nested ones too.
	ids []string
	// secretUsers are the agents configured with secrets, for the run's
	// scrubbing of model replies.
	secretUsers []agents.SecretUser
	// keyUsers are the agents whose model reads an API key from the
	// environment, for validate's preflight (preflight.go).
	keyUsers []keyUse
	// names.go: every workflow scope and template of the file, and the
	// definition being built, for the name checks at the end of the load.
	scopes []*scope
	tmpls  []tmplUse
	cur    *def
	// recording is spec mode (spec.go): configs record the keys read, and
	// nested workflows, references and inline agents are not built.
	recording bool
	spec      *load.Spec
	// mcp is the file's mcp_servers (tools: server.tool): the top-level
	// orchestrator's and those of its workflow_ref files; nil when the
	// options gave no reader (toolservers.go).
	mcp ToolServers
	// refRoot is set while the root workflow of a workflow_ref file is
	// about to be built (it may declare mcp_servers).
	refRoot bool
}

// config reads node, or records a spec in recording mode.
func (b *builder) config(node *yaml.Node, what string) *load.Config {
	if b.recording {
		c, spec := load.NewRecording(what, b.probs)
		b.spec = spec
		return c
	}
	return load.NewConfig(b.file, node, what, b.probs)
}

// modelUse is the first agent found calling a model.
type modelUse struct {
	model, agent string
	pos          load.Pos
}

// scope is one workflow's agent definitions; nested workflows see their parent's.
type scope struct {
	b      *builder
	parent *scope
	defs   map[string]*def
	order  []*def
	strict bool
	// presets is the scoring catalog factories see; nil means scoring.Default.
	presets *scoring.Catalog
	// maxReply is the orchestrator's max_reply_bytes (or an enclosing one's):
	// the limit of the model replies of agents that set none; 0 means none set.
	maxReply int64
	// owner is the agent whose factory built this workflow (a loop), nil at
	// top level; wf is the workflow built.
	owner *def
	wf    *Workflow
}

// replyLimited is an agent whose model replies are bounded (LLM agents): the
// orchestrator's max_reply_bytes applies to those that set none.
type replyLimited interface{ InheritMaxReplyBytes(n int64) }

// maxReplyBytes is the largest max_reply_bytes (types/llm's limit; the
// orchestrator does not import types/llm).
const maxReplyBytes = 1 << 30

type def struct {
	id, typ string
	cfg     *load.Config
	idPos   load.Pos
	state   int // 0 not built, 1 building, 2 built
	agent   agents.Agent
	deps    []string
	home    *scope   // the scope that defines it
	runBy   *def     // for an inline definition (a failover child), the agent that runs it
	refs    []string // the ids its factory asked for with Ref: agents it runs (fork branches, routes)
	hints   hints    // graph-scout hints (catalog.go)
	tool    toolDef  // description and parameters, for tools: lists (tools.go)
}

const (
	unbuilt = iota
	building
	built
)

// workflow builds the workflow in node; parent is the enclosing scope for nested
// workflows (nil at top level).
func (b *builder) workflow(node *yaml.Node, what string, parent *scope) *Workflow {
	c := b.config(node, what)
	refRoot := b.refRoot
	b.refRoot = false
	s, w := b.newScope(parent)

	orch := c.Map("orchestrator")
	if !c.Has("orchestrator") && parent == nil {
		c.Errorf("", "missing the orchestrator block (orchestrator: {id, strategy, agents: [...]})")
	}
	if !c.Has("agents") {
		c.Errorf("", "missing the agents list (agents: [{id, type, ...}, ...])")
	}
	s.collect(c)
	if parent == nil {
		c.Ignore(orkaTopLevel...)
	}
	c.Done()
	for _, d := range s.order {
		w.defined = append(w.defined, d.id)
		b.ids = append(b.ids, d.id)
	}
	if orch == nil {
		s.withoutOrchestrator(c, w)
		return w
	}

	w.ID = orch.String("id", w.ID)
	s.readOrchestrator(orch, w)
	s.readMCP(orch, w, refRoot)
	if dir := orch.String("presets_dir", ""); dir != "" {
		s.presets = b.loadPresets(orch, s.presets, dir)
	}
	orch.Ignore("queue", "memory", "memory_config", "memory_preset", "structured_output_defaults")
	orch.IgnoreBecause("(cogloop runs the agents list in order; it has no streaming mode)", "mode")
	queue := orch.Strings("agents")
	if !orch.Has("agents") {
		orch.Errorf("", "missing agents: the list of agent ids to run in order")
	} else if len(queue) == 0 {
		orch.Errorf("agents", "agents is empty: list the ids of the agents to run")
	}
	orch.Done()

	// Build every definition, so problems in agents the queue does not name are
	// reported too; queue entries are resolved by reference.
	for _, d := range s.order {
		s.build(d)
	}
	s.queueAgents(orch, queue, w)
	if parent == nil {
		b.checkPrices()
		b.checkTemplates()
		b.checkFieldRefs()
		w.secretUsers = b.secretUsers
		w.keyUsers = b.keyUsers
	}
	return w
}

// newScope is the scope of a workflow in parent (nil: the top level), which
// inherits parent's settings, and the workflow it defines.
func (b *builder) newScope(parent *scope) (*scope, *Workflow) {
	s := &scope{b: b, parent: parent, defs: map[string]*def{}, owner: b.cur}
	b.scopes = append(b.scopes, s)
	w := &Workflow{ID: "workflow"}
	s.wf = w
	if parent != nil {
		s.strict, s.presets, s.maxReply = parent.strict, parent.presets, parent.maxReply
		w.ID = "internal-workflow"
	} else {
		s.presets = b.opts.presets
	}
	return s, w
}

// withoutOrchestrator finishes a workflow c without an orchestrator block:
// an error at the top level or for an empty block, else (an internal
// workflow given as {agents: [...]} alone) the agents list, in order, is
// the queue (OrKa fills in the orchestrator).
func (s *scope) withoutOrchestrator(c *load.Config, w *Workflow) {
	switch {
	case c.Has("orchestrator"):
		c.Errorf("orchestrator", "orchestrator is empty: give {id, strategy, agents: [...]}")
	case s.parent != nil:
		if n := c.Node("agents"); n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
			c.Errorf("agents", "agents is empty: list the agents the internal workflow runs, in order")
		}
		s.queueDefinitions(w)
	}
}

// readOrchestrator reads the orchestrator's settings into w and s: its
// limits, strategy, pricing, budget and strictness (the keys only the
// top-level orchestrator may set are errors in an internal workflow).
func (s *scope) readOrchestrator(orch *load.Config, w *Workflow) {
	b, top := s.b, s.parent == nil
	w.MaxTotalIterations = orch.Int("max_total_iterations", 0, 1, 10_000_000)
	switch st := orch.String("strategy", "sequential"); st {
	case "sequential", "parallel", "":
	default:
		orch.Warnf("strategy", "strategy %q is a label only; agents run in the order of the agents list", st)
	}
	if top {
		b.pricing = b.readPricing(orch)
	} else if orch.Has("pricing") {
		orch.Errorf("pricing", "pricing belongs on the top-level orchestrator: it prices the models of the whole file")
	}
	w.pricing = b.pricing
	if l, ok := agents.NewBuilder(&scopeBuilder{s: s}).Budget(orch, "budget"); ok {
		l.Name = fmt.Sprintf("workflow %q", w.ID)
		w.budget = &l
	}
	s.strict = orch.Bool("strict_templates", s.strict)
	if orch.Has("max_reply_bytes") {
		s.maxReply = int64(orch.Int("max_reply_bytes", 0, 1, maxReplyBytes))
	}
	if top {
		w.Strict = orch.Bool("strict", false)
	} else if orch.Has("strict") {
		orch.Errorf("strict", "strict belongs on the top-level orchestrator: it applies to the whole file")
	}
}

// readMCP reads the top-level orchestrator's mcp_servers, description and
// inputs; a workflow_ref file's root (refRoot) brings its servers along.
func (s *scope) readMCP(orch *load.Config, w *Workflow, refRoot bool) {
	b := s.b
	switch {
	case s.parent == nil:
		b.mcp = b.readToolServers(nil, orch)
		w.MCP = b.mcp
		w.Description = strings.TrimSpace(orch.String("description", ""))
		w.Inputs = readInputs(orch)
	case refRoot && orch.Has("mcp_servers"):
		// A workflow_ref file brings its servers along: they join the
		// run's, one name one server.
		b.mcp = b.readToolServers(b.mcp, orch)
	case orch.Has("mcp_servers"):
		orch.Errorf("mcp_servers", "mcp_servers belongs on the top-level orchestrator (or that of a workflow_ref file): its servers serve the whole run (name them in tools: as server.tool)")
	}
}

// queueAgents makes the agents the orchestrator's agents list names (queue)
// w's queue; a name no agent defines is an error at its place in the list.
func (s *scope) queueAgents(orch *load.Config, queue []string, w *Workflow) {
	queueNode := orch.Node("agents")
	var steps []step
	positions := make([]load.Pos, 0, len(queue))
	for i, id := range queue {
		pos := orch.ValuePos("agents")
		if queueNode != nil && queueNode.Kind == yaml.SequenceNode && i < len(queueNode.Content) {
			pos = orch.PosOf(queueNode.Content[i])
		}
		d := s.lookup(id)
		if d == nil {
			s.b.probs.Errorf(pos, "orchestrator: agents names %q, which no agent defines%s", id, s.suggest(id))
			continue
		}
		s.build(d)
		steps = append(steps, step{Step: agents.NewStep(id, d.typ, d.agent), deps: d.deps})
		positions = append(positions, pos)
	}
	w.setQueue(steps, positions, s.b.probs, orch.ValuePos("agents"))
}

// queueDefinitions makes the definitions of s, in file order, the steps of w:
// the queue of an internal workflow without an orchestrator block. An agent
// that another definition runs (a fork's branch, a router's route, a failover
// child) is left to it rather than run twice.
func (s *scope) queueDefinitions(w *Workflow) {
	if len(s.order) == 0 {
		return // no agents: the agents list is missing or empty, already reported
	}
	runBy := map[string]bool{}
	for _, d := range s.order {
		s.build(d)
		if r, ok := agents.Unwrap(d.agent).(agents.Referrer); ok {
			for _, id := range r.Refs() {
				if id != d.id {
					runBy[id] = true
				}
			}
		}
	}
	steps := make([]step, 0, len(s.order))
	positions := make([]load.Pos, 0, len(s.order))
	for _, d := range s.order {
		if runBy[d.id] {
			continue
		}
		steps = append(steps, step{Step: agents.NewStep(d.id, d.typ, d.agent), deps: d.deps})
		positions = append(positions, d.idPos)
	}
	pos := load.Pos{File: s.b.file}
	if len(positions) > 0 {
		pos = positions[0]
	}
	w.setQueue(steps, positions, s.b.probs, pos)
}

// setQueue orders steps by depends_on and makes them w's queue; positions are
// the steps' places in the file, pos the queue's.
func (w *Workflow) setQueue(steps []step, positions []load.Pos, probs *load.Problems, pos load.Pos) {
	warnRunTwice(steps, positions, probs)
	w.steps = order(steps, probs, pos)
	w.seq.Steps = make([]agents.Step, len(w.steps))
	for i, st := range w.steps {
		w.seq.Steps[i] = st.Step
	}
}

// collect reads the agents list into definitions.
func (s *scope) collect(c *load.Config) {
	list := c.Node("agents")
	if list == nil {
		return
	}
	if list.Kind != yaml.SequenceNode {
		s.b.probs.Errorf(c.PosOf(list), "agents must be a list of agent definitions, not %s", load.KindName(list))
		return
	}
	for _, item := range list.Content {
		d := s.newDef(load.Resolve(item), "")
		if d == nil {
			continue
		}
		if prev, dup := s.defs[d.id]; dup {
			s.b.probs.Errorf(d.idPos, "agent id %q is defined twice (first at %s); ids must be unique", d.id, prev.idPos)
			continue
		}
		s.defs[d.id] = d
		s.order = append(s.order, d)
	}
}

// newDef reads id, type and depends_on of one definition; the rest is the factory's.
func (s *scope) newDef(n *yaml.Node, fallbackID string) *def {
	what := "agent"
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "id" {
				what = fmt.Sprintf("agent %q", n.Content[i+1].Value)
			}
		}
	}
	c := s.b.config(n, what)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return s.readDef(c, fallbackID, "")
}

// readDef reads the keys every definition has.
func (s *scope) readDef(c *load.Config, fallbackID, fallbackType string) *def {
	id := strings.TrimSpace(c.String("id", fallbackID))
	if id == "" {
		c.Errorf("", "missing id: every agent needs a unique id")
		return nil
	}
	typ := c.String("type", fallbackType)
	if typ == "" {
		c.Errorf("", "missing type (one of: %s)", strings.Join(s.b.reg.Types(), ", "))
		return nil
	}
	return &def{id: id, typ: typ, cfg: c, idPos: c.ValuePos("id"), deps: c.Strings("depends_on"), hints: readHints(c), tool: readToolDef(typ, c)}
}

func (s *scope) lookup(id string) *def {
	for sc := s; sc != nil; sc = sc.parent {
		if d, ok := sc.defs[id]; ok {
			return d
		}
	}
	return nil
}

func (s *scope) suggest(id string) string {
	var ids []string
	for sc := s; sc != nil; sc = sc.parent {
		for _, d := range sc.order {
			ids = append(ids, d.id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf(" (defined: %s)", strings.Join(ids, ", "))
}

// build runs d's factory once; a definition that references itself through
// children is a cycle.
func (s *scope) build(d *def) {
	switch d.state {
	case built:
		return
	case building:
		s.b.probs.Errorf(d.idPos, "agent %q refers to itself through its children; break the cycle", d.id)
		return
	}
	d.state = building
	d.agent = s.construct(d)
	d.state = built
}

// construct calls the factory of d's type. The definition's own scope is the one
// that defined it, so a parent's agent named from a nested workflow builds there.
func (s *scope) construct(d *def) agents.Agent {
	f, ok := s.b.reg.Lookup(d.typ)
	if !ok {
		s.b.probs.Errorf(d.cfg.ValuePos("type"), "agent %q: unknown type %q (known types: %s)", d.id, d.typ, strings.Join(s.b.reg.Types(), ", "))
		return nil
	}
	home, inline := s, true
	for sc := s; sc != nil; sc = sc.parent {
		if sc.defs[d.id] == d {
			home, inline = sc, false
			break
		}
	}
	d.home = home
	if inline {
		d.runBy = s.b.cur
	}
	prev := s.b.cur
	s.b.cur = d
	a, err := f(agents.NewBuilder(&scopeBuilder{s: home}), d.cfg)
	s.b.cur = prev
	if err != nil {
		s.b.probs.Errorf(d.cfg.Pos(), "agent %q: %v", d.id, err)
	}
	if mu, ok := a.(agents.ModelUser); ok {
		for _, m := range mu.Models() {
			s.b.noteModel(m, d)
		}
	}
	if su, ok := a.(agents.SecretUser); ok {
		s.b.secretUsers = append(s.b.secretUsers, su)
	}
	if kn, ok := a.(keyNeeder); ok {
		s.b.keyUsers = append(s.b.keyUsers, keyUse{id: d.id, a: kn})
	}
	if rl, ok := a.(replyLimited); ok && home.maxReply > 0 {
		rl.InheritMaxReplyBytes(home.maxReply)
	}
	a = withTimeout(a, d)
	a = s.b.withRetry(a, d)
	d.cfg.IgnoreUnread("", orkaAgentKeys...)
	d.cfg.Done()
	return a
}

// withRetry applies the common key retry: to a. The key belongs to whoever
// reads it: a factory that reads it itself (LLM agents, validators, memory
// agents, which retry around each model call with [retry.DefaultLLM] as
// default) applies it; for any other agent the builder reads it, with
// [retry.DefaultAgent] for the keys left out, and wraps the agent with
// [retry.Wrap]. So one policy type, one Retrier and one event kind serve
// every agent, and no agent is retried twice over.
func (b *builder) withRetry(a agents.Agent, d *def) agents.Agent {
	if d.cfg.Known("retry") || !d.cfg.Has("retry") {
		return a
	}
	p := retry.ReadPolicy(d.cfg, "retry", retry.DefaultAgent())
	if a == nil || p.Type == retry.None || p.Count <= 0 {
		return a
	}
	r := b.opts.retrier
	r.Policy = p
	return retry.Wrap(a, r, d.id)
}

// noteModel records the first use of model, for the price check.
func (b *builder) noteModel(model string, d *def) {
	for _, u := range b.models {
		if strings.EqualFold(u.model, model) {
			return
		}
	}
	pos := d.idPos
	keys := d.cfg.Keys()
	for _, k := range []string{"model", "llm_model"} {
		if slices.Contains(keys, k) {
			pos = d.cfg.ValuePos(k)
			break
		}
	}
	b.models = append(b.models, modelUse{model: model, agent: d.id, pos: pos})
}

// readPricing returns the file's pricing table: the base table with the
// orchestrator's pricing: (an inline table, or the name of a pricing file
// relative to the workflow file) on top.
func (b *builder) readPricing(orch *load.Config) spend.Pricing {
	base := b.opts.pricing
	if base == nil {
		base = spend.DefaultPricing()
	}
	n := orch.Node("pricing")
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return base
	}
	if n.Kind == yaml.MappingNode {
		return base.With(spend.ReadPricing(b.file, n, orch.What()+": pricing", b.probs))
	}
	if n.Kind != yaml.ScalarNode {
		orch.Errorf("pricing", "pricing must be a mapping {<model>: {prompt, completion}} (per 1k tokens) or the name of a pricing file, not %s", load.KindName(n))
		return base
	}
	path := strings.TrimSpace(n.Value)
	if !filepath.IsAbs(path) && b.file != "" {
		path = filepath.Join(filepath.Dir(b.file), path)
	}
	data, err := ReadFile(path, b.opts.limits)
	if err != nil {
		orch.Errorf("pricing", "pricing file: %v", err)
		return base
	}
	p, err := spend.ParsePricing(data, path)
	if err != nil {
		var le *load.Error
		if errors.As(err, &le) {
			for _, pr := range le.Problems {
				b.probs.Errorf(pr.Pos, "%s", pr.Msg)
			}
		} else {
			orch.Errorf("pricing", "pricing file %s: %v", path, err)
		}
		return base
	}
	return base.With(p)
}

// checkPrices checks, once the whole file is built, that the models in use
// have a price when a budget needs one: a model without a price is an error
// when any budget of the file limits cost, and a warning when budgets limit
// only tokens (its calls are counted without cost). The check is file-wide,
// not per scope: a file that limits cost anywhere prices every model it uses.
func (b *builder) checkPrices() {
	var cost, tokens *spend.Limit
	for i := range b.budgets {
		l := &b.budgets[i]
		if l.MaxCost > 0 && cost == nil {
			cost = l
		}
		if l.MaxCost == 0 && tokens == nil {
			tokens = l
		}
	}
	if cost == nil && tokens == nil {
		return
	}
	for _, u := range b.models {
		if _, ok := b.pricing.Price(u.model); ok {
			continue
		}
		if cost != nil {
			b.probs.Errorf(u.pos, "agent %q: model %q has no price, and the budget at %s limits cost (max_cost); price it with pricing: {%q: {prompt: …, completion: …}} (per 1k tokens) on the orchestrator",
				u.agent, u.model, cost.Pos, u.model)
			continue
		}
		b.probs.Warnf(u.pos, "agent %q: model %q has no price; the budget at %s limits only tokens, so its calls count no cost (price it with pricing: on the orchestrator)",
			u.agent, u.model, tokens.Pos)
	}
}

// loadPresets adds the presets in dir (relative to the workflow file) to base.
func (b *builder) loadPresets(orch *load.Config, base *scoring.Catalog, dir string) *scoring.Catalog {
	if !filepath.IsAbs(dir) && b.file != "" {
		dir = filepath.Join(filepath.Dir(b.file), dir)
	}
	if base == nil {
		var err error
		if base, err = scoring.Default(); err != nil {
			orch.Errorf("presets_dir", "%v", err)
			return nil
		}
	}
	cat, err := base.LoadDir(dir)
	if err != nil {
		orch.Errorf("presets_dir", "presets_dir %q: %v", dir, err)
		return base
	}
	return cat
}

// scopeBuilder does the work of the [agents.Builder] a factory gets: it is
// the [agents.Workspace] of one workflow scope.
type scopeBuilder struct{ s *scope }

var _ agents.Workspace = (*scopeBuilder)(nil)

// NoteBudget records a budget read with [agents.Builder.Budget] (the
// orchestrator's own, a loop's) for the price check at the end of the load.
func (sb *scopeBuilder) NoteBudget(l spend.Limit) { sb.s.b.budgets = append(sb.s.b.budgets, l) }

// Presets is the scoring catalog of the workflow being built (presets_dir on
// its orchestrator or an enclosing one, or the catalog given to Parse); nil
// means scoring.Default.
func (sb *scopeBuilder) Presets() *scoring.Catalog { return sb.s.presets }

func (sb *scopeBuilder) Workflow(node *yaml.Node, what string) (agents.Agent, error) {
	if sb.s.b.recording {
		return nil, nil
	}
	n := load.Resolve(node)
	if n == nil {
		return nil, errors.New("the workflow is empty")
	}
	return sb.s.b.workflow(n, what, sb.s), nil
}

func (sb *scopeBuilder) Inline(node *yaml.Node) (agents.Agent, error) {
	if sb.s.b.recording {
		return nil, nil
	}
	d := sb.s.newDef(load.Resolve(node), "")
	if d == nil {
		return nil, nil
	}
	if d.id != "" {
		// A failover's children are defined here: a --script answers them too.
		sb.s.b.ids = append(sb.s.b.ids, d.id)
	}
	return sb.s.construct(d), nil
}

func (sb *scopeBuilder) Ref(id string, pos load.Pos) (agents.Agent, error) {
	if sb.s.b.recording {
		return nil, nil
	}
	d := sb.s.lookup(id)
	if d == nil {
		sb.s.b.probs.Errorf(pos, "%q names no agent of this workflow%s", id, sb.s.suggest(id))
		return nil, nil
	}
	sb.s.build(d)
	if cur := sb.s.b.cur; cur != nil {
		cur.refs = append(cur.refs, id)
	}
	return d.agent, nil
}

// Template parses the template and notes it for the name checks at the end
// of the load (names.go).
func (sb *scopeBuilder) Template(c *load.Config, key string) *prompt.Template {
	if c.Recording() {
		c.String(key, "")
		return nil
	}
	t := sb.parseTemplate(c, key)
	if t != nil {
		sb.s.b.noteTemplate(c, key, c.Node(key), t)
	}
	return t
}

func (sb *scopeBuilder) parseTemplate(c *load.Config, key string) *prompt.Template {
	n := c.Node(key)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		c.Errorf(key, "%s must be text (a template), not %s", key, load.KindName(n))
		return nil
	}
	t, err := prompt.Parse(c.What()+" "+key, n.Value, prompt.Options{Strict: sb.s.strict})
	if err != nil {
		var se *prompt.SyntaxError
		if errors.As(err, &se) {
			sb.s.b.probs.Errorf(sb.s.b.templatePos(c.File(), n, se.Line, se.Col), "%s: %s template: %s", c.What(), key, se.Msg)
		} else {
			sb.s.b.probs.Errorf(c.PosOf(n), "%s: %s template: %v", c.What(), key, err)
		}
		return nil
	}
	for _, w := range t.Warnings() {
		sb.s.b.probs.Warnf(sb.s.b.templatePos(c.File(), n, w.Line, w.Col), "%s: %s template: %s", c.What(), key, w.Msg)
	}
	return t
}

// templatePos maps a position inside a template to the file. Block scalars (| and >)
// start on the next line at their indentation; quoted and plain scalars start at
// the node (after the quote).
func (b *builder) templatePos(file string, n *yaml.Node, line, col int) load.Pos {
	if line < 1 {
		line, col = 1, 1
	}
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		fl := n.Line + line // the template's first line is the one after the indicator
		indent := 0
		if lines := b.lines[file]; fl-1 < len(lines) {
			l := lines[fl-1]
			for indent < len(l) && (l[indent] == ' ' || l[indent] == '\t') {
				indent++
			}
		}
		return load.Pos{File: file, Line: fl, Col: indent + col}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if line == 1 {
			return load.Pos{File: file, Line: n.Line, Col: n.Column + col}
		}
	default:
		if line == 1 {
			return load.Pos{File: file, Line: n.Line, Col: n.Column + col - 1}
		}
	}
	return load.Pos{File: file, Line: n.Line + line - 1, Col: col}
}
