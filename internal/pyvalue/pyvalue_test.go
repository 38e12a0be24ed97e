package pyvalue

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// table is testdata/python_values.json, written once by CPython
// (testdata/python_values.py): the expected values are Python's, not ours.
type table struct {
	Python string `json:"python"`
	Values []struct {
		Value  any    `json:"value"`
		Str    string `json:"str"`
		Repr   string `json:"repr"`
		Truthy bool   `json:"truthy"`
	} `json:"values"`
	Float []struct {
		Text string `json:"text"`
		OK   bool   `json:"ok"`
		Repr string `json:"repr"`
	} `json:"float"`
}

func readTable(t *testing.T) table {
	t.Helper()
	data, err := os.ReadFile("testdata/python_values.json")
	require.NoError(t, err)
	var tb table
	require.NoError(t, json.Unmarshal(data, &tb))
	require.NotEmpty(t, tb.Values)
	return tb
}

// decode rebuilds the Python value of the table's encoding (see python_values.py).
func decode(t *testing.T, v any) any {
	t.Helper()
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = decode(t, e)
		}
		return out
	case map[string]any:
		switch {
		case x["int"] != nil:
			n, err := strconv.ParseInt(x["int"].(string), 10, 64)
			require.NoError(t, err)
			return int(n)
		case x["float"] != nil:
			f, ok := ParseFloat(x["float"].(string))
			require.True(t, ok, "float %v", x["float"])
			return f
		case x["sorted"] != nil:
			m := map[string]any{}
			for _, kv := range x["sorted"].([]any) {
				p := kv.([]any)
				m[p[0].(string)] = decode(t, p[1])
			}
			return m
		case x["dict"] != nil:
			var ps Pairs
			for _, kv := range x["dict"].([]any) {
				p := kv.([]any)
				ps = append(ps, Pair{decode(t, p[0]), decode(t, p[1])})
			}
			return ps
		}
		t.Fatalf("bad encoding %v", x)
	}
	return v
}

func TestAgainstCPython(t *testing.T) {
	tb := readTable(t)
	for _, row := range tb.Values {
		v := decode(t, row.Value)
		t.Run(row.Repr, func(t *testing.T) {
			assert.Equal(t, row.Str, Str(v), "str()")
			assert.Equal(t, row.Repr, Repr(v), "repr()")
			assert.Equal(t, row.Truthy, Truthy(v), "bool()")
		})
	}
}

func TestParseFloatAgainstCPython(t *testing.T) {
	tb := readTable(t)
	require.NotEmpty(t, tb.Float)
	for _, row := range tb.Float {
		t.Run(strconv.Quote(row.Text), func(t *testing.T) {
			f, ok := ParseFloat(row.Text)
			require.Equal(t, row.OK, ok, "float(%q) succeeds in Python: %v", row.Text, row.OK)
			if ok {
				assert.Equal(t, row.Repr, Float(f))
			}
		})
	}
}

func TestFloatSpecials(t *testing.T) {
	assert.Equal(t, "nan", Float(math.NaN()))
	assert.Equal(t, "1500000.0", Str(1500000.0))
	assert.Equal(t, "['a', 'b']", Str([]any{"a", "b"}))
}

func TestConvertAndDepth(t *testing.T) {
	type foreign struct{ items []string }
	p := Printer{Convert: func(v any) (any, bool) {
		if f, ok := v.(foreign); ok {
			out := make([]any, len(f.items))
			for i, s := range f.items {
				out[i] = s
			}
			return out, true
		}
		return nil, false
	}}
	assert.Equal(t, "{'k': ['x', 'y']}", p.Repr(Pairs{{"k", foreign{[]string{"x", "y"}}}}))
	var deep any = "end"
	for range maxDepth + 5 {
		deep = []any{deep}
	}
	assert.Contains(t, Repr(deep), "...")
}
