package configs

import "embed"

// Presets holds presets/*.yaml, the scoring presets shipped with cogloop.
//
//go:embed presets/*.yaml
var Presets embed.FS

// Pricing is pricing.yaml: the built-in model prices (US dollars per 1,000
// prompt and completion tokens) that budgets use to compute costs.
//
//go:embed pricing.yaml
var Pricing []byte
