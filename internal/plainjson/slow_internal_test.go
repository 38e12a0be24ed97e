package plainjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlowDecodeAgreesWithDecode: the decoder COGLOOP_PERF_OFF=plainjson
// switches to gives the values Decode gives (Decode is held to encoding/json
// by the external tests) and refuses what Decode refuses.
func TestSlowDecodeAgreesWithDecode(t *testing.T) {
	for _, c := range []string{
		`{"loop_number":1,"score":0.62,"insights":"a | b"}`,
		`{"nested":{"list":[1,2.5,-3,"x",true,false,null,{"k":[]}],"empty":{}}}`,
		`[0,-0,1e3,1E-2,-1.5e+2,9007199254740993,9223372036854775807,9223372036854775808,-9223372036854775809]`,
		`"\u00e9\ud83d\ude00"`, `null`, ` 12 `,
		`{} {}`, `{"a":}`, `[1,]`, ``,
	} {
		want, werr := Decode([]byte(c))
		got, err := slowDecode([]byte(c))
		require.Equal(t, werr == nil, err == nil, "%s: %v / %v", c, werr, err)
		assert.Equal(t, want, got, c)
	}
}
