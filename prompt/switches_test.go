package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setSwitches sets each of the package's shortcut switches in sw to off
// (true: the plain way) and returns a function that puts back what they were.
func setSwitches(off bool, sw ...*bool) (restore func()) {
	was := make([]bool, len(sw))
	for i, s := range sw {
		was[i], *s = *s, off
	}
	return func() {
		for i, s := range sw {
			*s = was[i]
		}
	}
}

// TestSwitchesOffGiveTheSameResults: each shortcut switched off on its own
// (as COGLOOP_PERF_OFF=lexall, fastexpr or fastrender does)
// parses every template of the repository to the same error and renders and
// evaluates it to the same text, value and error.
func TestSwitchesOffGiveTheSameResults(t *testing.T) {
	tpls := repoTemplates(t)
	require.Greater(t, len(tpls), 200)
	for name, sw := range map[string]*bool{"lexall": &plainLex, "fastexpr": &noFast, "fastrender": &noPlan} {
		t.Run(name, func(t *testing.T) {
			parsed := 0
			for _, src := range tpls {
				for _, strict := range []bool{false, true} {
					on, onErr := Parse("sw", src, Options{Strict: strict})
					restore := setSwitches(true, sw)
					off, offErr := Parse("sw", src, Options{Strict: strict})
					restore()
					require.Equal(t, errText(onErr), errText(offErr), "strict=%v %q", strict, src)
					if onErr != nil {
						continue
					}
					parsed++
					assert.True(t, name != "fastrender" || off.plan == nil, "the switch leaves no plan")
					for _, d := range planDataFor(on) {
						if strings.Contains(src, "random") || strings.Contains(src, "now") {
							break
						}
						assertSameResults(t, on, off, d, fmt.Sprintf("strict=%v %q", strict, src))
					}
				}
			}
			assert.Greater(t, parsed, 400)
			if name == "fastexpr" {
				defer setSwitches(true, sw)()
				assert.Nil(t, compileFast(&nodes.Name{Name: &tokens.Token{Val: "x"}}), "the switch leaves no fast path")
			}
		})
	}
}
