package configs

import "embed"

// Presets holds presets/*.yaml, the scoring presets shipped with cogloop.
//
//go:embed presets/*.yaml
var Presets embed.FS
