package redis

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

// oldDecode is how History read an entry before decodeEnvelope.
func oldDecode(b []byte) (memory.Entry, error) {
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return memory.Entry{}, err
	}
	return memory.Entry{RunID: env.RunID, LoopPath: env.LoopPath, Iteration: env.Iteration, At: env.At, Data: env.Data}, nil
}

// envelopes: what main's Append wrote (testdata of the root package, taken
// from a real redis-server) and shapes that only encoding/json decides.
func envelopes(t testing.TB) [][]byte {
	raw, err := os.ReadFile("../../testdata/history_compat/redis.json")
	require.NoError(t, err)
	var fx struct {
		PastLoops []string `json:"past_loops"`
	}
	require.NoError(t, json.Unmarshal(raw, &fx))
	require.NotEmpty(t, fx.PastLoops)
	var out [][]byte
	for _, e := range fx.PastLoops {
		out = append(out, []byte(e))
	}
	for _, e := range []string{
		`{"run_id":"r","loop_path":"","iteration":1,"at":"2026-01-02T03:04:05.123456789Z","data":{"a":1}}`,
		`{"RUN_ID":"r","iteration":1,"data":null}`,
		`{"run_id":null,"iteration":2,"data":[1,2]}`,
		`{"run_id":"r","iteration":2.0,"data":{}}`,
		`{"run_id":"r","iteration":1e1,"data":{}}`,
		`{"run_id":"r","iteration":99999999999999999999,"data":{}}`,
		`{"run_id":"r","iteration":1,"at":"yesterday","data":{}}`,
		`{"run_id":"r","iteration":1,"extra":true,"data":{ "spaced" : 1 }}`,
		`{"run_id":"r\u00e9\"","iteration":1,"run_id":"s","data":{}}`,
		`{"run_id":"r","iteration":1,"data":{"a":}}`,
		`[1]`, `null`, `{}`, ``, `{"run_id":"r"} x`,
	} {
		out = append(out, []byte(e))
	}
	return out
}

func TestDecodeEnvelopeReadsWhatEncodingJSONReads(t *testing.T) {
	for _, b := range envelopes(t) {
		compareEnvelope(t, b)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, b := range envelopes(f) {
		f.Add(b)
	}
	f.Fuzz(compareEnvelope)
}

func compareEnvelope(t *testing.T, b []byte) {
	want, wantErr := oldDecode(b)
	got, err := decodeEnvelope(b)
	if wantErr != nil {
		require.Error(t, err, "%s", b)
		return
	}
	require.NoError(t, err, "%s", b)
	require.Equal(t, want.RunID, got.RunID, "%s", b)
	require.Equal(t, want.LoopPath, got.LoopPath, "%s", b)
	require.Equal(t, want.Iteration, got.Iteration, "%s", b)
	require.True(t, want.At.Equal(got.At), "%s: at %v, want %v", b, got.At, want.At)
	require.Equal(t, string(want.Data), string(got.Data), "%s", b)
}
