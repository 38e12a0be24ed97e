package redis

import (
	"context"
	"fmt"
	"log/slog"

	goredis "github.com/redis/go-redis/v9"
)

// SetLogger routes go-redis's own log lines (such as "failed to dial",
// which the store also reports in its errors) to l at debug level, or
// discards them when l is nil. go-redis's logger is process-wide, so this
// setting is too: call it once at start-up (the CLI does), not per store.
// Without a call, go-redis writes to the standard logger (stderr).
func SetLogger(l *slog.Logger) {
	goredis.SetLogger(slogAdapter{l})
}

type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Printf(ctx context.Context, format string, v ...any) {
	if a.l == nil {
		return
	}
	a.l.DebugContext(ctx, fmt.Sprintf(format, v...), slog.String("component", "go-redis"))
}
