package cognition

import "sync"

// A loader compiles the same expressions again and again: every loop of a
// workflow usually repeats OrKa's lesson patterns and score pattern, and a
// process may load many workflows. Compiling one lesson pattern (regexp2, its
// prefilter, anchored and RE2 forms) costs about half a million
// instructions, so compiled patterns are kept for the life of the process,
// keyed by expression and options. Sharing them is safe: a *Pattern is
// immutable once compiled, and so are its engines (regexp2's and Go's
// Regexp are documented as safe for concurrent use). The one field set after
// compiling, the prefilter's literal index (NewExtractor's), lives in the
// copy each caller gets.

// maxCachedPatterns bounds the cache; once it is full, new expressions are
// compiled without being kept (a long-lived process loading endless distinct
// patterns must not grow without bound).
const maxCachedPatterns = 4096

type patternKey struct {
	expr string
	opts PatternOptions
}

var patternCache struct {
	sync.Mutex
	m map[patternKey]*Pattern
}

// cachedCompile is compile(expr, o, true) through the process-wide cache. It
// returns a copy of the cached pattern that the caller may point at its own
// literal index. Errors are not kept: they are rare, and compiling again
// reports the same one.
func cachedCompile(expr string, o PatternOptions) (*Pattern, error) {
	k := patternKey{expr, o}
	patternCache.Lock()
	p := patternCache.m[k]
	patternCache.Unlock()
	if p == nil {
		var err error
		if p, err = compile(expr, o, true); err != nil {
			return nil, err
		}
		patternCache.Lock()
		if patternCache.m == nil {
			patternCache.m = make(map[patternKey]*Pattern)
		}
		if len(patternCache.m) < maxCachedPatterns {
			patternCache.m[k] = p
		}
		patternCache.Unlock()
	}
	c := *p
	return &c, nil
}
