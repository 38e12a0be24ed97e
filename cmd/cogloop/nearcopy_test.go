package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Near-copies of the API key (upper-cased, spaced, split by a newline, minus
// one character) in a model's replies, streamed and not, and in an error body
// reach no channel: stdout (--json), stderr (-v with its live deltas), the
// trace, the run record, the HTML report.
func TestSecretNearCopiesReachNoChannel(t *testing.T) {
	const key = "sk-near-Q7f3ZpL0x9VbN2mW"
	variants := []string{
		strings.ToUpper(key),
		strings.Join(strings.Split(key, ""), " "),
		key[:9] + "\n" + key[9:],
		key[:len(key)-1],
	}
	reply := "Here: " + strings.Join(variants, " | ") + " end."
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stream bool `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if calls.Add(1) == 2 { // the editor: an error body echoing the key's near-copies
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			msg, _ := json.Marshal(reply)
			_, _ = io.WriteString(w, `{"error":{"message":`+string(msg)+`,"type":"invalid_request_error"}}`)
			return
		}
		if !body.Stream {
			msg, _ := json.Marshal(reply)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":`+string(msg)+`},"finish_reason":"stop"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(reply); i += 3 { // the key's letters arrive in pieces
			p, _ := json.Marshal(reply[i:min(i+3, len(reply))])
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", p)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)

	for _, verbose := range []bool{false, true} {
		calls.Store(0)
		out := t.TempDir()
		trace, page := filepath.Join(out, "trace.jsonl"), filepath.Join(out, "run.html")
		id := fmt.Sprintf("near-%v", verbose)
		args := []string{"run", hello, "topic", "--trace", trace, "--report", page, "--json", "--run-id", id}
		if verbose {
			args = append(args, "-v")
		}
		code, stdout, stderr := runCLI(t, args...)
		assert.Equal(t, exitFailure, code, "the editor's call fails")
		channels := map[string]string{"stdout": stdout, "stderr": stderr}
		for name, p := range map[string]string{"trace": trace, "report": page, "record": filepath.Join(dir, id+".jsonl")} {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			channels[name] = string(b)
		}
		assert.Contains(t, channels["trace"], "[REDACTED:OPENAI_API_KEY]", "the near-copies were there and were scrubbed")
		for name, s := range channels {
			plain := strings.NewReplacer(`\n`, "", " ", "", "\n", "").Replace(strings.ToLower(s))
			assert.False(t, strings.Contains(plain, strings.ToLower(key[1:len(key)-1])),
				"verbose %v: a near-copy of the key in %s", verbose, name)
		}
	}
}
