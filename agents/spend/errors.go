package spend

import "errors"

// Sentinel errors callers act on.
var (
	// ErrBudgetExceeded: a model call was refused before it was made, because
	// its worst case does not fit a budget scope it runs in (see [Budget]). A
	// loop stops with stop_reason budget on it; it is never retried.
	ErrBudgetExceeded = errors.New("budget exceeded")
	// ErrNoPrice: a model call was refused because a budget scope limits cost
	// and the pricing has no price for the call's model. Loading a workflow
	// reports this for the models it names; it is never retried.
	ErrNoPrice = errors.New("no price for the model")
)
