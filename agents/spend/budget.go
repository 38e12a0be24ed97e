package spend

import (
	"fmt"
	"github.com/cogloop/cogloop/agents/load"
	"math"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// DefaultReserveTokens is the completion a model call reserves in its budget
// when its agent sets no max_tokens: the worst case of a call is its estimated
// prompt plus max_tokens, or plus this when max_tokens is 0. Set max_tokens on
// agents that run under a tight budget.
const DefaultReserveTokens = 1024

// EstimateTokens is a cheap upper-leaning guess of the tokens of text: one per
// 3 bytes (English averages about 4 bytes a token, other scripts fewer), plus
// a few for the message framing. It is only used to reserve budget before a
// call; what the call used is counted from the provider's reply.
func EstimateTokens(text string) int {
	if text == "" {
		return 0
	}
	return (len(text)+2)/3 + 4
}

// Limit bounds what one budget scope may spend. A zero field is unlimited.
type Limit struct {
	// MaxTokens bounds prompt plus completion tokens.
	MaxTokens int
	// MaxCost bounds the cost, in the pricing's currency.
	MaxCost float64
	// Name names the scope in errors ("workflow \"quality\"", "loop \"improve\"").
	Name string
	// Pos is where the budget was written, when it was read from a file.
	Pos load.Pos
}

// Limited reports whether l limits anything.
func (l Limit) Limited() bool { return l.MaxTokens > 0 || l.MaxCost > 0 }

func (l Limit) name() string {
	if l.Name == "" {
		return "the budget"
	}
	return "the budget of " + l.Name
}

// Budget is one scope of a run's spending: the whole run, a workflow with
// budget:, one run of a loop with budget:. Scopes nest ([Budget.Child]); a model
// call reserves its worst case in its scope and every enclosing one
// ([Budget.Reserve]) and is refused, before it is made, when that does not fit
// one of them. So a run never spends more than its limits, as long as calls use
// no more than their worst case; a call that uses more (a prompt bigger than its
// estimate) can overshoot by that call alone.
//
// A Budget is safe for concurrent use (fork branches reserve in parallel). A
// nil *Budget limits and prices nothing: Reserve always succeeds and Spent is
// zero.
type Budget struct {
	tree   *budgetTree
	parent *Budget
	limit  Limit
	key    string // the scope's name in the run's journal; "" for none

	// guarded by tree.mu
	spent    Usage
	reserved Usage
	exceeded bool
}

// budgetTree is what every scope of one run shares.
type budgetTree struct {
	mu      sync.Mutex
	pricing Pricing
	journal Journal // nil: nothing outlives the run

	folds *folds // pricing's case-insensitive lookups, made on the first
}

// price is pricing.Price, with an empty model free (scripted replies); a
// model name not in the table as written is looked up case-insensitively
// once per table (see [foldsOf]), not per call or per run.
func (t *budgetTree) price(model string) (Price, bool) {
	if model == "" {
		return Price{}, true
	}
	if pr, ok := t.pricing[model]; ok {
		return pr, true
	}
	t.mu.Lock()
	if t.folds == nil {
		t.folds = foldsOf(t.pricing)
	}
	f := t.folds
	t.mu.Unlock()
	return f.price(model)
}

// NewBudget returns the root scope of a run, limited by l (a zero Limit
// limits nothing), pricing calls with pricing.
func NewBudget(l Limit, pricing Pricing) *Budget {
	return &Budget{tree: &budgetTree{pricing: pricing}, limit: l}
}

// Child opens a scope inside b, limited by l; what is spent in it is spent in
// b too. On a nil b the child is a root scope priced with [DefaultPricing].
func (b *Budget) Child(l Limit) *Budget {
	if b == nil {
		return NewBudget(l, DefaultPricing())
	}
	return &Budget{tree: b.tree, parent: b, limit: l}
}

// Limit is the scope's own limit.
func (b *Budget) Limit() Limit {
	if b == nil {
		return Limit{}
	}
	return b.limit
}

// Pricing is the table the scope's calls are priced with.
func (b *Budget) Pricing() Pricing {
	if b == nil {
		return nil
	}
	return b.tree.pricing
}

// Spent is what the calls settled in this scope (and its children) used, with
// its cost.
func (b *Budget) Spent() Usage {
	if b == nil {
		return Usage{}
	}
	b.tree.mu.Lock()
	defer b.tree.mu.Unlock()
	return b.spent
}

// Exceeded reports whether a call in this scope or a scope inside it was
// refused with [ErrBudgetExceeded], whichever enclosing limit it did not fit. A
// composite that turns failures into error records (a workflow) still lets its
// caller see that the budget ran out: a loop stops with stop_reason budget
// when its scope is exceeded after an iteration.
func (b *Budget) Exceeded() bool {
	if b == nil {
		return false
	}
	b.tree.mu.Lock()
	defer b.tree.mu.Unlock()
	return b.exceeded
}

// Reservation is the worst case of one model call, booked in its scopes until
// the call is settled. It is a value (reserving allocates nothing); settle it
// through one copy.
type Reservation struct {
	b       *Budget
	model   string
	price   Price // model's price (zero when it has none)
	worst   Usage
	settled bool
}

// Reserve books the worst case of one call of model in b and every enclosing
// scope. It fails, booking nothing, with an error wrapping [ErrBudgetExceeded]
// when what a scope has spent and reserved plus worst passes its limit (tokens,
// or cost at model's price), and with [ErrNoPrice] when a scope limits cost and
// model has no price. An empty model is free (scripted replies). Settle the
// reservation once the call is over, whether it succeeded or not.
func (b *Budget) Reserve(model string, worst Usage) (Reservation, error) {
	if b == nil {
		return Reservation{model: model, worst: worst}, nil
	}
	price, priced := b.tree.price(model)
	worst.Cost = price.Cost(worst)
	b.tree.mu.Lock()
	defer b.tree.mu.Unlock()
	for s := b; s != nil; s = s.parent {
		l := s.limit
		if l.MaxCost > 0 && !priced {
			return Reservation{}, fmt.Errorf("%w: %s limits cost (max_cost %s), and model %q has no price; add it to pricing: on the orchestrator ({prompt, completion} per 1k tokens)",
				ErrNoPrice, l.name(), money(l.MaxCost), model)
		}
		if l.MaxTokens > 0 && s.spent.Total()+s.reserved.Total()+worst.Total() > l.MaxTokens {
			markExceeded(b)
			return Reservation{}, fmt.Errorf("%w: %s allows %d tokens, %d are spent and %d reserved, and this call may use %d (%d prompt, estimated, + %d completion)",
				ErrBudgetExceeded, l.name(), l.MaxTokens, s.spent.Total(), s.reserved.Total(), worst.Total(), worst.PromptTokens, worst.CompletionTokens)
		}
		if l.MaxCost > 0 && over(s.spent.Cost+s.reserved.Cost+worst.Cost, l.MaxCost) {
			markExceeded(b)
			return Reservation{}, fmt.Errorf("%w: %s allows %s, %s is spent and %s reserved, and this call of %s may cost %s",
				ErrBudgetExceeded, l.name(), money(l.MaxCost), money(s.spent.Cost), money(s.reserved.Cost), model, money(worst.Cost))
		}
	}
	for s := b; s != nil; s = s.parent {
		s.reserved = s.reserved.Add(worst)
	}
	if err := commit(b); err != nil {
		// A call whose reservation could not be recorded is not made: a resume
		// could not know it was.
		for s := b; s != nil; s = s.parent {
			s.reserved = s.reserved.sub(worst)
		}
		return Reservation{}, err
	}
	return Reservation{b: b, model: model, price: price, worst: worst}, nil
}

// markExceeded marks s, the scope a refused call ran in, and every enclosing
// scope: each of them sees the refusal, whichever limit caused it.
func markExceeded(s *Budget) {
	for ; s != nil; s = s.parent {
		s.exceeded = true
	}
}

// over reports whether spent passes limit, allowing for float rounding.
func over(spent, limit float64) bool { return spent > limit*(1+1e-9) }

func money(f float64) string {
	s := fmt.Sprintf("%.6f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		s = "0"
	}
	return "$" + s
}

// Settle releases the reservation and counts what the call used in every
// scope. It returns actual with its Cost at the call's model's price (0 when
// the model has no price, or without a budget). Settling twice counts once.
func (r *Reservation) Settle(actual Usage) Usage {
	if r == nil || r.b == nil {
		actual.Cost = 0
		return actual
	}
	actual.Cost = r.price.Cost(actual)
	r.b.tree.mu.Lock()
	defer r.b.tree.mu.Unlock()
	if r.settled {
		return actual
	}
	r.settled = true
	for s := r.b; s != nil; s = s.parent {
		s.reserved = s.reserved.sub(r.worst)
		s.spent = s.spent.Add(actual)
	}
	// A failed record leaves the one made at Reserve, which is not lower.
	_ = commit(r.b)
	return actual
}

// ReadBudget reads key of c as a budget: {max_tokens: N, max_cost: 0.50},
// either or both. Problems (a negative or zero limit, neither limit, unknown
// keys) are recorded on c with positions; ok is false when the key is absent
// or has a problem. The limit is named after c (c.What()) and carries the
// key's position.
func ReadBudget(c *load.Config, key string) (l Limit, ok bool) {
	n := c.Node(key)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return Limit{}, false
	}
	if n.Kind != yaml.MappingNode {
		c.Errorf(key, "%s must be a mapping {max_tokens, max_cost}, not %s", key, load.KindName(n))
		return Limit{}, false
	}
	before := len(c.Problems().Errors())
	bc := c.Map(key)
	l = Limit{Name: c.What(), Pos: c.KeyPos(key)}
	hasTokens, hasCost := bc.Has("max_tokens"), bc.Has("max_cost")
	if hasTokens {
		l.MaxTokens = bc.Int("max_tokens", 0, math.MinInt32, math.MaxInt32)
		if l.MaxTokens <= 0 && len(c.Problems().Errors()) == before {
			bc.Errorf("max_tokens", "max_tokens must be at least 1, not %d", l.MaxTokens)
		}
	}
	if hasCost {
		costBefore := len(c.Problems().Errors())
		l.MaxCost = bc.Float("max_cost", 0, -math.MaxFloat64, math.MaxFloat64)
		if l.MaxCost <= 0 && len(c.Problems().Errors()) == costBefore {
			bc.Errorf("max_cost", "max_cost must be more than 0, not %g", l.MaxCost)
		}
	}
	if !hasTokens && !hasCost {
		c.Errorf(key, "%s needs max_tokens (prompt + completion tokens), max_cost (in the pricing's currency) or both", key)
	}
	bc.Done()
	if len(c.Problems().Errors()) > before {
		return Limit{}, false
	}
	return l, true
}
