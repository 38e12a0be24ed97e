package spend

// Usage counts model tokens, normalised across providers, and what they cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Cost is what the tokens cost by the run's [Pricing] (US dollars with the
	// built-in table); 0 when the model has no price or the call ran without a
	// [Budget]. Sums of usage sum it too.
	Cost float64 `json:"cost,omitempty"`
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		Cost: u.Cost + v.Cost}
}

// sub returns u - v.
func (u Usage) sub(v Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens - v.PromptTokens, CompletionTokens: u.CompletionTokens - v.CompletionTokens,
		Cost: u.Cost - v.Cost}
}
