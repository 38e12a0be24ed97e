package plainjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/internal/plainjson"
)

// reference is what the loop did before: encoding/json with UseNumber, then
// agents.Plain.
func reference(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return agents.Plain(v), nil
}

var corpus = []string{
	`{"loop_number":1,"score":0.62,"insights":"a | b","timestamp":"2026-11-23T21:37:21.394107"}`,
	`{"improvements":"a picture of the call stack growing and shrinking. | a second example","mistakes":"the cost of deep call stacks and the risk of a st..."}`,
	`{"nested":{"list":[1,2.5,-3,"x",true,false,null,{"k":[]}],"empty":{}}}`,
	`{"n":[0,-0,1e3,1E-2,-1.5e+2,9007199254740993,9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809,123456789012345678,1234567890123456789]}`,
	`{"big":1e400,"small":-1e400,"tiny":1e-400}`,
	`{"esc":"quote \" backslash \\ slash \/ \b\f\n\r\t","u":"\u00e9\u4e16\ud83d\ude00","lone":"\ud800 x \udc00 \ud800\u0041"}`,
	"{\"raw\":\"caf\xc3\xa9 \xff bad \xe4\xb8 cut\"}",
	`{"dup":1,"dup":2}`,
	` { "spaced" : [ 1 , 2 ] } `,
	`null`, `[]`, `"s"`, `12`, `true`,
	`{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `"\x"`, `"\u12"`, "\"a\x01\"", `{"a":1} x`, `{`, `[`, `"`, ``, `nul`, `{1:2}`,
}

func TestDecodeMatchesEncodingJSONAndPlain(t *testing.T) {
	for _, c := range corpus {
		compare(t, []byte(c))
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range corpus {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { compare(t, data) })
}

func compare(t *testing.T, data []byte) {
	t.Helper()
	valid := json.Valid(data)
	require.Equal(t, valid, plainjson.Valid(data), "Valid(%q)", data)
	got, err := plainjson.Decode(data)
	if !valid {
		require.Error(t, err, "Decode(%q)", data)
		var se *plainjson.SyntaxError
		require.True(t, errors.As(err, &se), "Decode(%q): %v is not a SyntaxError", data, err)
		return
	}
	require.NoError(t, err, "Decode(%q)", data)
	want, err := reference(data)
	require.NoError(t, err)
	if !sameValue(want, got) {
		t.Fatalf("Decode(%q) = %#v, encoding/json + Plain = %#v", data, got, want)
	}
}

// sameValue is deep equality where NaN cannot occur and -0 must be kept.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y))
	}
	return a == b
}

// TestLongStrings puts each byte that ends a string's plain run at every
// offset of a long string (the scan tests eight bytes at a time).
func TestLongStrings(t *testing.T) {
	for _, c := range []string{`"`, `\\`, `\n`, `\u00e9`, "\x01", "\x1f", "\xff", "é", "\x7f", " ", "!", "#", "[", "]"} {
		for at := range 20 {
			body := strings.Repeat("a", at) + c + strings.Repeat("b", 19-at)
			compare(t, []byte(`{"k":"`+body+`"}`))
			compare(t, []byte(`["`+body+`", 1]`))
		}
	}
}

func TestDecodeValues(t *testing.T) {
	v, err := plainjson.Decode([]byte(`{"i":3,"f":0.5,"s":"é","l":[1],"o":{},"b":true,"n":null,"x":1e400}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"i": 3, "f": 0.5, "s": "é", "l": []any{1}, "o": map[string]any{}, "b": true, "n": nil, "x": math.Inf(1)}, v)
}

func TestDecodeErrorsNameTheOffset(t *testing.T) {
	_, err := plainjson.Decode([]byte(`{"a": 1, "b": tru}`))
	require.Error(t, err)
	assert.Equal(t, "invalid JSON at offset 14: expected true", err.Error())
	_, err = plainjson.Decode([]byte(strings.Repeat("[", 10001) + strings.Repeat("]", 10001)))
	assert.ErrorContains(t, err, "nested too deeply")
	assert.False(t, plainjson.Valid([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001))))
	assert.Equal(t, json.Valid([]byte(strings.Repeat("[", 10000)+strings.Repeat("]", 10000))), plainjson.Valid([]byte(strings.Repeat("[", 10000)+strings.Repeat("]", 10000))))
}

func TestObject(t *testing.T) {
	m, err := plainjson.Object([]byte(`{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": 1}, m)
	m, err = plainjson.Object([]byte(`null`))
	require.NoError(t, err)
	assert.Nil(t, m)
	_, err = plainjson.Object([]byte(`[1]`))
	assert.EqualError(t, err, "not a JSON object")
	_, err = plainjson.Object([]byte(`{"a"`))
	assert.ErrorContains(t, err, "invalid JSON at offset 4")
}

func TestMembers(t *testing.T) {
	var keys []string
	var raws []string
	err := plainjson.Members([]byte(` {"run_id":"r\"1","data":{"a":[1, 2]},"n":3} `), func(k string, v []byte) error {
		keys, raws = append(keys, k), append(raws, string(v))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"run_id", "data", "n"}, keys)
	assert.Equal(t, []string{`"r\"1"`, `{"a":[1, 2]}`, `3`}, raws)

	stop := errors.New("stop")
	assert.ErrorIs(t, plainjson.Members([]byte(`{"a":1,"b":2}`), func(string, []byte) error { return stop }), stop)
	assert.NoError(t, plainjson.Members([]byte(`{}`), func(string, []byte) error { return stop }))
	assert.EqualError(t, plainjson.Members([]byte(`[1]`), func(string, []byte) error { return nil }), "not a JSON object")
	assert.ErrorContains(t, plainjson.Members([]byte(`{"a":1,"b":}`), func(string, []byte) error { return nil }), "offset 11")
	assert.ErrorContains(t, plainjson.Members([]byte(`{"a":1} x`), func(string, []byte) error { return nil }), "data after the value")
	assert.ErrorContains(t, plainjson.Members([]byte(`{"a":1`), func(string, []byte) error { return nil }), "end of input")
	assert.ErrorContains(t, plainjson.Members([]byte(`x`), func(string, []byte) error { return nil }), "offset 0: expected a JSON object")
}
