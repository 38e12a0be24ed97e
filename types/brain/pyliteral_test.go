package brain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePython(t *testing.T) {
	v, err := parsePython(`{'a': 'it\'s "x"\n', "b": [1, 2.5, True, False, None, (3,)], 'c': {'d': '\u00e9'}, 4: 'k',}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": "it's \"x\"\n", "b": []any{1, 2.5, true, false, nil, []any{3}},
		"c": map[string]any{"d": "é"}, "4": "k"}, v)

	for _, bad := range []string{`{'a': }`, `{'a' 'b'}`, `{'a': 'b'`, `{'a': open('x')}`, `{'a': 1} extra`, `{'a': '\u12'}`} {
		_, err := parsePython(bad)
		assert.Error(t, err, bad)
	}
	deep := ""
	for range 100 {
		deep += "["
	}
	_, err = parsePython(deep)
	assert.Error(t, err, "nesting is bounded")
}

func TestParsePayload(t *testing.T) {
	assert.Equal(t, payload{"skill_id": "x"}, parsePayload(`{"skill_id": "x"}`))
	assert.Equal(t, payload{"response": "it's", "confidence": "0.5"}, parsePayload(`{'response': 'it\'s', 'confidence': '0.5'}`))
	assert.Equal(t, payload{"response": "plain text"}, parsePayload("plain text"))
	assert.Equal(t, payload{}, parsePayload("  "))
}

func FuzzParsePython(f *testing.F) {
	f.Add(`{'a': [1, 'b\n', None]}`)
	f.Fuzz(func(t *testing.T, s string) { _, _ = parsePython(s) })
}
