// Package spend owns what a run spends on models and how it is limited:
// [Usage] (tokens and their cost), the [Pricing] table that prices them (per
// 1,000 tokens; [DefaultPricing] is configs/pricing.yaml, [ParsePricing] and
// [ReadPricing] read others) and the [Budget] scopes that bound them.
//
// # Budgets
//
// A [Budget] is one scope of a run's spending (the run, a workflow or a loop
// with budget: {max_tokens, max_cost}, read by [ReadBudget]); scopes nest
// with [Budget.Child] and travel in agents.Input.Budget. A model call
// reserves its worst case (agents.Request.WorstCase) in its scope and every
// enclosing one before it is made and is refused with [ErrBudgetExceeded]
// when it does not fit; afterwards the actual usage is counted and priced
// with the run's [Pricing]. [Usage] carries the cost, so every sum of usage
// (a step, a workflow, a loop iteration, a run) sums the cost too. Scopes
// opened with [Budget.ChildAt] record what they commit in the run's
// [Journal] (agents.Checkpoint is one) before and after every call, so a
// resumed run goes on from what the dead one spent, the call in flight at
// its worst case.
//
// # Imports
//
// It imports agents/fault, agents/load and configs.
//
// The agents package imports it (Input carries a Budget, Output a Usage), so
// it must not import agents or anything that does.
//
// # Concurrency
//
// A [Budget] is safe for concurrent use (fork branches reserve in parallel);
// a [Pricing] is immutable once a run uses it.
package spend
