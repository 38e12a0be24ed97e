package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/types/llm"
)

// A streamed reply the agent's timeout cuts is a failed call, never a short
// success: the agent fails with the timeout error; what had arrived shows only
// in the error, clipped. The server sends part of the reply, then waits for
// the client to go away.
func TestStreamCutByTheTimeoutFails(t *testing.T) {
	first := "The first part of a long answer; "
	cases := []struct {
		name  string
		agent string
		send  func(w http.ResponseWriter)
	}{
		{"openai", "type: openai-answer\nmodel: gpt-test\n", func(w http.ResponseWriter) {
			writeSSEPieces(w, first, "the key is sk-cut-canary-42 and more")
		}},
		{"ollama", "type: local_llm\nprovider: ollama\nmodel: llama3\n", func(w http.ResponseWriter) {
			writeNDJSONPieces(w, first, "the key is sk-cut-canary-42 and more")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sent := make(chan struct{})
			srv := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request, _ map[string]any) {
				tc.send(w)
				close(sent)
				<-r.Context().Done() // the client went away: its timeout ended the call
			})
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-cut-canary-42")},
				"id: writer\n"+tc.agent+"model_url: "+srv.URL+"\ntimeout: 1s\napi_key_env: OPENAI_API_KEY\nprompt: hi\n")
			rec := &recorder{}
			out, err := a.Run(context.Background(), streamRun(rec, true))
			<-sent
			require.Error(t, err, "a cut stream is not a reply")
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			msg := err.Error()
			assert.Contains(t, msg, "no reply within the agent's timeout of 1s")
			assert.Contains(t, msg, "the stream was cut before the model finished")
			assert.Contains(t, msg, "bytes had arrived, beginning \"The first part of a long answer; ")
			assert.NotContains(t, msg, "sk-cut-canary-42")
			assert.Nil(t, out.Response, "no response from a cut stream")
			assert.Len(t, srv.Requests(), 1)
			assert.NotContains(t, rec.JSON(t), "sk-cut-canary-42")
		})
	}
}

// A stream the server closes before its end (an OpenAI finish reason or
// [DONE], Ollama's done line) is a server error (retried), not a short
// success.
func TestStreamClosedEarlyIsRetried(t *testing.T) {
	cases := []struct {
		name, agent string
		part, whole func(w http.ResponseWriter)
	}{
		{"openai", "type: openai-answer\nmodel: gpt-test\n",
			func(w http.ResponseWriter) { writeSSEPieces(w, "only the beginning") },
			func(w http.ResponseWriter) { openAISSE(w, []string{"whole ", "reply"}, 3, 2) }},
		{"ollama", "type: local_llm\nprovider: ollama\nmodel: llama3\n",
			func(w http.ResponseWriter) { writeNDJSONPieces(w, "only the beginning") },
			func(w http.ResponseWriter) { ollamaNDJSON(w, []string{"whole ", "reply"}, 3, 2) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				if n == 1 {
					tc.part(w)
					return
				}
				tc.whole(w)
			})
			sl := &fakeSleep{}
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-test"), Sleep: sl.Sleep},
				"id: writer\n"+tc.agent+"model_url: "+srv.URL+"\nprompt: hi\n")
			rec := &recorder{}
			out, err := a.Run(context.Background(), streamRun(rec, true))
			require.NoError(t, err)
			assert.Equal(t, "whole reply", out.Response)
			assert.Len(t, srv.Requests(), 2)
			require.Len(t, sl.Waits(), 1)
			var errs []string
			for _, e := range rec.Events() {
				if e.Error != "" {
					errs = append(errs, e.Error)
				}
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, errs[0], "the server ended the stream before the model finished")
		})
	}
}
