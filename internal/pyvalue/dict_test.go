package pyvalue

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDictOrder(t *testing.T) {
	m := map[string]any{"z": 1, "response": "hi\nthere", "a": nil, "confidence": 0.5}
	d := NewDict(m, []string{"response", "confidence", "missing", "response"})
	assert.Equal(t, []string{"response", "confidence", "a", "z"}, d.Keys())
	assert.Equal(t, 4, d.Len())
	assert.Equal(t, `{'response': 'hi\nthere', 'confidence': 0.5, 'a': None, 'z': 1}`, Repr(d))
	assert.Equal(t, Repr(d), Str(d))
	v, ok := d.Get("z")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	js, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Equal(t, `{"response":"hi\nthere","confidence":0.5,"a":null,"z":1}`, string(js))
	assert.True(t, Truthy(d))
	assert.False(t, Truthy(NewDict(map[string]any{}, nil)))
	var none *Dict
	assert.Equal(t, "None", Repr(none))
	assert.Zero(t, none.Len())
	js, err = json.Marshal(none)
	require.NoError(t, err)
	assert.Equal(t, "null", string(js))
}

// Without an order a Dict prints exactly as the map does (sorted keys).
func TestDictWithoutOrderIsTheMap(t *testing.T) {
	m := map[string]any{"b": []any{"x", map[string]any{"d": 1, "c": 2}}, "a": true}
	assert.Equal(t, Repr(m), Repr(NewDict(m, nil)))
}

func TestJSONOrderAndOrdered(t *testing.T) {
	text := `{"zeta": 1, "alpha": {"y": [ {"q": 1, "p": 2}, 3, {"n": 1, "m": 2} ], "x": 2}, "mid": [1, 2], "zeta": 3}`
	o, err := JSONOrder([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, []string{"zeta", "alpha", "mid"}, o.Keys)
	var v any
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	before := Repr(v)
	got := Ordered(v, o)
	assert.Equal(t, `{'zeta': 3, 'alpha': {'y': [{'q': 1, 'p': 2}, 3, {'n': 1, 'm': 2}], 'x': 2}, 'mid': [1, 2]}`,
		strings.ReplaceAll(Repr(got), ".0", ""))
	assert.Equal(t, before, Repr(v), "Ordered changes nothing it was given")
	assert.Nil(t, Ordered(nil, o))
	assert.Equal(t, "text", Ordered("text", o))
	assert.Equal(t, v, Ordered(v, nil))
}

func TestJSONOrderRefuses(t *testing.T) {
	for _, bad := range []string{``, `{"a":`, `{} {}`, `[1,]`, strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)} {
		_, err := JSONOrder([]byte(bad))
		assert.Error(t, err, bad)
	}
	_, err := JSONOrder(make([]byte, maxJSONOrderBytes+1))
	assert.ErrorContains(t, err, "4 MiB")
	o, err := JSONOrder([]byte(`"scalar"`))
	require.NoError(t, err)
	assert.Nil(t, o)
}

// Large objects keep linear work: keys past smallKeys go through a set.
func TestOrderManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	m := map[string]any{}
	order := []string{}
	for i := 999; i >= 0; i-- {
		if i < 999 {
			b.WriteString(",")
		}
		k := "k" + strconv.Itoa(i)
		b.WriteString(strconv.Quote(k) + ":1")
		m[k] = 1
		order = append(order, k)
	}
	b.WriteString(`,"k5":2}`)
	o, err := JSONOrder([]byte(b.String()))
	require.NoError(t, err)
	assert.Equal(t, order, o.Keys)
	assert.Equal(t, order, NewDict(m, append(order, order...)).Keys())
}
