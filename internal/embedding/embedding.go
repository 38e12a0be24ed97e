package embedding

import "context"

// Embedder turns text into a vector. It does I/O: callers pass their context.
type Embedder interface {
	Embed(ctx context.Context, text string) ([]float32, error)
}
