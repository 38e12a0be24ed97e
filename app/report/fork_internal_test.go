package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A loop's fork point names each enclosing loop's pass: what cogloop fork
// --pass reads.
func TestForkLoopNamesTheEnclosingPasses(t *testing.T) {
	assert.Equal(t, "improve", forkLoop("improve", "wf › improve"))
	assert.Equal(t, "outer:2/inner", forkLoop("inner", "wf › outer › iteration 2 › body › inner"))
	assert.Equal(t, "a:1/b:3/c", forkLoop("c", "a › iteration 1 › b › iteration 3 › c"))
}
