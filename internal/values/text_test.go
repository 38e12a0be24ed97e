package values

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	ch := make(chan int)
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, ""},
		{"a <b> & c", "a <b> & c"},
		{true, "true"},
		{3, "3"},
		{int64(-4), "-4"},
		{0.85, "0.85"},
		{1234567.0, "1234567"},
		{1e21, "1e+21"},
		{1e-7, "1e-07"},
		{0.0, "0"},
		{math.NaN(), "NaN"},
		{json.Number("7.50"), "7.50"},
		{map[string]any{"b": "<x>", "a": 1}, `{"a":1,"b":"<x>"}`}, // sorted keys, no HTML escaping
		{[]any{1, "two"}, `[1,"two"]`},
		{map[string]any{"v": math.NaN(), "c": ch}, `{"c":<chan int>,"v":NaN}`},
	} {
		assert.Equal(t, c.want, Text(c.in), "%#v", c.in)
	}
}
