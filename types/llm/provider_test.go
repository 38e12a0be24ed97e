package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/types/llm"
)

// proto is one wire protocol, spoken by a fake server, through langchaingo's
// real client.
type proto struct {
	name  string
	agent func(url string) string // the agent definition, model_url = url
	path  string                  // the path langchaingo calls
	ok    func(w http.ResponseWriter, body map[string]any, text string)
	fail  func(w http.ResponseWriter, status int, msg string)
	env   func(string) string
	usage spend.Usage
}

var protos = []proto{
	{
		name: "openai",
		agent: func(u string) string {
			return "id: x\ntype: openai-answer\nmodel: gpt-test\nmodel_url: " + u + "\nprompt: Say hi\n"
		},
		path:  "/v1/chat/completions",
		ok:    func(w http.ResponseWriter, _ map[string]any, text string) { agenttest.WriteChatReply(w, text, 11, 7) },
		fail:  openAIError,
		env:   env("OPENAI_API_KEY", "sk-test"),
		usage: spend.Usage{PromptTokens: 11, CompletionTokens: 7},
	},
	{
		name: "ollama",
		agent: func(u string) string {
			return "id: x\ntype: local_llm\nprovider: ollama\nmodel: llama3\nmodel_url: " + u + "/api/generate\nprompt: Say hi\n"
		},
		path:  "/api/chat",
		ok:    func(w http.ResponseWriter, body map[string]any, text string) { ollamaOK(w, body, text, 13, 5) },
		fail:  ollamaError,
		env:   env(),
		usage: spend.Usage{PromptTokens: 13, CompletionTokens: 5},
	},
	{
		name: "lm_studio",
		agent: func(u string) string {
			return "id: x\ntype: local_llm\nprovider: lm_studio\nmodel: qwen\nmodel_url: " + u + "\nprompt: Say hi\n"
		},
		path:  "/v1/chat/completions",
		ok:    func(w http.ResponseWriter, _ map[string]any, text string) { agenttest.WriteChatReply(w, text, 3, 2) },
		fail:  openAIError,
		env:   env("OPENAI_API_KEY", "sk-must-not-leave"),
		usage: spend.Usage{PromptTokens: 3, CompletionTokens: 2},
	},
}

func TestNormalReplyWithUsage(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				p.ok(w, body, "Hello there")
			})
			a := mustBuild(t, llm.Options{Getenv: p.env}, p.agent(srv.URL))
			out, err := a.Run(context.Background(), input(nil))
			require.NoError(t, err)
			assert.Equal(t, "Hello there", out.Response)
			assert.Equal(t, p.usage, out.Usage)
			assert.Equal(t, "Say hi", out.Prompt)
			assert.Equal(t, map[string]any{"confidence": llm.DefaultConfidence, "internal_reasoning": ""}, out.Fields)

			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, p.path, reqs[0].Path)
			assert.Contains(t, reqs[0].Raw, "Say hi")
		})
	}
}

func TestTemperatureIsAlwaysSent(t *testing.T) {
	for _, p := range protos {
		for _, temp := range []string{"0", "", "1.3"} {
			t.Run(p.name+"/"+temp, func(t *testing.T) {
				srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
					p.ok(w, body, "ok")
				})
				def := p.agent(srv.URL)
				want := 0.7
				if temp != "" {
					def += "temperature: " + temp + "\n"
					_, err := fmt.Sscan(temp, &want)
					require.NoError(t, err)
				}
				a := mustBuild(t, llm.Options{Getenv: p.env}, def)
				_, err := a.Run(context.Background(), input(nil))
				require.NoError(t, err)
				reqs := srv.Requests()
				require.Len(t, reqs, 1)
				holder := reqs[0].Body
				if p.name == "ollama" {
					holder, _ = holder["options"].(map[string]any)
				}
				got, present := holder["temperature"]
				require.True(t, present, "temperature must be in the request: %s", reqs[0].Raw)
				assert.InDelta(t, want, got, 1e-6)
			})
		}
	}
}

func TestMaxTokensField(t *testing.T) {
	for _, tc := range []struct {
		proto int
		field string
	}{{0, "max_completion_tokens"}, {2, "max_tokens"}} {
		p := protos[tc.proto]
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) { p.ok(w, body, "ok") })
			a := mustBuild(t, llm.Options{Getenv: p.env}, p.agent(srv.URL)+"max_tokens: 77\n")
			_, err := a.Run(context.Background(), input(nil))
			require.NoError(t, err)
			assert.EqualValues(t, 77, srv.Requests()[0].Body[tc.field])
		})
	}
	t.Run("ollama", func(t *testing.T) {
		p := protos[1]
		srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) { p.ok(w, body, "ok") })
		a := mustBuild(t, llm.Options{Getenv: p.env}, p.agent(srv.URL)+"max_tokens: 77\n")
		_, err := a.Run(context.Background(), input(nil))
		require.NoError(t, err)
		opts, _ := srv.Requests()[0].Body["options"].(map[string]any)
		assert.EqualValues(t, 77, opts["num_predict"])
	})
}

func TestOpenAIKeyModelAndBaseURLFromEnvironment(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, "ok", 1, 1)
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-env", "BASE_OPENAI_MODEL", "gpt-env", "OPENAI_BASE_URL", srv.URL+"/v1/")},
		"id: x\ntype: openai-answer\nprompt: hi\nsystem_prompt: You are terse.\n")
	_, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	req := srv.Requests()[0]
	assert.Equal(t, "/v1/chat/completions", req.Path)
	assert.Equal(t, "gpt-env", req.Body["model"])
	assert.Equal(t, "Bearer sk-env", req.Header.Get("Authorization"))
	msgs, _ := req.Body["messages"].([]any)
	require.Len(t, msgs, 2)
	assert.Equal(t, "system", msgs[0].(map[string]any)["role"])
	assert.Contains(t, req.Raw, "You are terse.")
}

func TestLocalServersNeverGetTheOpenAIKey(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, "ok", 1, 1)
	})
	for _, prov := range []string{"lm_studio", "openai_compatible"} {
		a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-must-not-leave")},
			"id: x\ntype: local_llm\nprovider: "+prov+"\nmodel_url: "+srv.URL+"/v1/chat/completions\nprompt: hi\n")
		_, err := a.Run(context.Background(), input(nil))
		require.NoError(t, err)
	}
	for _, r := range srv.Requests() {
		assert.Equal(t, "/v1/chat/completions", r.Path)
		assert.NotContains(t, r.Header.Get("Authorization"), "sk-must-not-leave")
	}

	// A key named with api_key_env is sent.
	a := mustBuild(t, llm.Options{Getenv: env("VLLM_KEY", "sk-vllm")},
		"id: x\ntype: local_llm\nprovider: openai_compatible\napi_key_env: VLLM_KEY\nmodel_url: "+srv.URL+"\nprompt: hi\n")
	_, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.Equal(t, "Bearer sk-vllm", reqs[len(reqs)-1].Header.Get("Authorization"))
}

func TestRateLimitThenSuccessHonoursRetryAfter(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				if n == 1 {
					w.Header().Set("Retry-After", "3")
					p.fail(w, http.StatusTooManyRequests, "slow down")
					return
				}
				p.ok(w, body, "made it")
			})
			sl := &fakeSleep{}
			rec := &recorder{}
			a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep, Rand: func() float64 { return 0 }}, p.agent(srv.URL))
			out, err := a.Run(context.Background(), input(rec))
			require.NoError(t, err)
			assert.Equal(t, "made it", out.Response)
			assert.Len(t, srv.Requests(), 2)
			require.Len(t, sl.Waits(), 1)
			assert.GreaterOrEqual(t, sl.Waits()[0], 3*time.Second, "Retry-After: 3 must be honoured")

			ev := rec.Events()
			require.Len(t, ev, 1)
			assert.Equal(t, event.AgentRetry, ev[0].Kind)
			assert.Equal(t, "x", ev[0].Agent)
			assert.Equal(t, 1, ev[0].Attempt)
			assert.Equal(t, 429, ev[0].Data["status"])
			assert.Equal(t, "rate_limit", ev[0].Data["class"])
			assert.GreaterOrEqual(t, ev[0].Data["wait_ms"], int64(3000))
			assert.Contains(t, ev[0].Error, "HTTP 429")
		})
	}
}

func TestServerErrorIsRetried(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				switch n {
				case 1:
					p.fail(w, http.StatusInternalServerError, "boom")
				case 2:
					w.WriteHeader(http.StatusBadGateway) // no body at all
				default:
					p.ok(w, body, "recovered")
				}
			})
			sl := &fakeSleep{}
			rec := &recorder{}
			a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(srv.URL))
			out, err := a.Run(context.Background(), input(rec))
			require.NoError(t, err)
			assert.Equal(t, "recovered", out.Response)
			assert.Len(t, srv.Requests(), 3)
			assert.Len(t, sl.Waits(), 2)
			ev := rec.Events()
			require.Len(t, ev, 2)
			assert.Equal(t, 500, ev[0].Data["status"])
			assert.Equal(t, 502, ev[1].Data["status"])
			assert.Equal(t, "server_error", ev[1].Data["class"])
		})
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, p := range protos {
		for _, status := range []int{400, 401, 403} {
			t.Run(fmt.Sprintf("%s/%d", p.name, status), func(t *testing.T) {
				srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
					p.fail(w, status, "nope")
				})
				sl := &fakeSleep{}
				rec := &recorder{}
				a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(srv.URL))
				_, err := a.Run(context.Background(), input(rec))
				require.Error(t, err)
				assert.Len(t, srv.Requests(), 1, "not retried")
				assert.Empty(t, sl.Waits())
				assert.Empty(t, rec.Events())
				assert.Contains(t, err.Error(), fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)))
				assert.Contains(t, err.Error(), srv.URL)
				assert.Equal(t, retry.ClassPermanent, retry.Classify(err))
			})
		}
	}
}

func TestSlowReplyHitsTheAgentTimeout(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) { block(r) })
			sl := &fakeSleep{}
			a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(srv.URL)+"timeout: 200ms\n")
			start := time.Now()
			_, err := a.Run(context.Background(), input(nil))
			require.Error(t, err)
			assert.Less(t, time.Since(start), 3*time.Second)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "timeout of 200ms")
			assert.Contains(t, err.Error(), srv.URL)
			assert.Len(t, srv.Requests(), 1)
			assert.Empty(t, sl.Waits())
		})
	}
}

func TestCancellationDuringTheCall(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) { block(r) })
			a := mustBuild(t, llm.Options{Getenv: p.env}, p.agent(srv.URL))
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := a.Run(ctx, input(nil))
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.Less(t, time.Since(start), 3*time.Second)
			assert.Len(t, srv.Requests(), 1)
		})
	}
}

func TestCancellationDuringTheBackoffWait(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				w.Header().Set("Retry-After", "20")
				p.fail(w, http.StatusServiceUnavailable, "busy")
			})
			// The real timer, announced when the wait begins: the cancel
			// comes while the agent waits, not after a guessed delay.
			waiting := make(chan time.Duration, 1)
			sleep := func(ctx context.Context, d time.Duration) error {
				waiting <- d
				return retry.Sleep(ctx, d)
			}
			a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sleep}, p.agent(srv.URL))
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				if d := <-waiting; d < 10*time.Second {
					t.Errorf("Retry-After: 20 gave a wait of %v", d)
				}
				cancel()
			}()
			start := time.Now()
			_, err := a.Run(ctx, input(nil))
			require.Error(t, err)
			assert.Less(t, time.Since(start), 5*time.Second, "the 20s wait is cut short")
			assert.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "while waiting to retry")
			assert.Contains(t, err.Error(), "HTTP 503")
			assert.Len(t, srv.Requests(), 1)
		})
	}
}

func TestUnreachableServerNamesTheURLAfterBoundedRetries(t *testing.T) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			u := "http://" + nettest.ClosedAddr(t)
			sl := &fakeSleep{}
			rec := &recorder{}
			a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(u))
			_, err := a.Run(context.Background(), input(rec))
			require.Error(t, err)
			assert.Contains(t, err.Error(), strings.TrimPrefix(u, "http://"))
			assert.Contains(t, err.Error(), "connection refused")
			assert.Contains(t, err.Error(), "gave up after 4 attempts")
			assert.Len(t, sl.Waits(), 3)
			assert.Len(t, rec.Events(), 3)
			assert.Equal(t, retry.ClassServerError, retry.Classify(err))
		})
	}
}

func TestMissingAPIKeyNamesTheVariable(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, "ok", 1, 1)
	})
	cases := []struct {
		name, def, want string
	}{
		{"openai-answer", "type: openai-answer\nmodel: gpt-test\nmodel_url: " + srv.URL, "OPENAI_API_KEY"},
		{"openai-binary", "type: openai-binary\nmodel: gpt-test\nmodel_url: " + srv.URL, "OPENAI_API_KEY"},
		{"llm openai", "type: llm\nprovider: openai\nmodel: gpt-test\nmodel_url: " + srv.URL, "OPENAI_API_KEY"},
		{"anthropic", "type: llm\nprovider: anthropic\nmodel: claude-test\nmodel_url: " + srv.URL, "ANTHROPIC_API_KEY"},
		{"googleai", "type: llm\nprovider: googleai\nmodel: gemini-test", "GOOGLE_API_KEY"},
		{"api_key_env", "type: local_llm\nprovider: openai_compatible\napi_key_env: MY_GATEWAY_KEY\nmodel_url: " + srv.URL, "MY_GATEWAY_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sl := &fakeSleep{}
			a := mustBuild(t, llm.Options{Getenv: env(), Sleep: sl.Sleep}, "id: x\n"+tc.def+"\nprompt: hi\n")
			_, err := a.Run(context.Background(), input(nil))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "(set the environment variable "+tc.want, "the fix names the variable")
			assert.True(t, fault.IsFatal(err), "a missing key stops the run")
			assert.Equal(t, retry.ClassPermanent, retry.Classify(err))
			assert.Empty(t, sl.Waits())
		})
	}
	assert.Empty(t, srv.Requests(), "no call is made without a key")
}

func TestMissingOpenAIModel(t *testing.T) {
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk")}, "id: x\ntype: openai-answer\nprompt: hi\nmodel_url: http://127.0.0.1:9\n")
	_, err := a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BASE_OPENAI_MODEL")
	assert.True(t, fault.IsFatal(err))
	assert.Equal(t, retry.ClassPermanent, retry.Classify(err))
}

func TestEmptyReplyIsAnError(t *testing.T) {
	for _, p := range protos {
		for _, text := range []string{"", "  \n "} {
			t.Run(fmt.Sprintf("%s/%q", p.name, text), func(t *testing.T) {
				srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
					if text == "" && p.name == "ollama" {
						ollamaOK(w, map[string]any{"stream": false}, "", 1, 0)
						return
					}
					p.ok(w, body, text)
				})
				sl := &fakeSleep{}
				a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(srv.URL))
				_, err := a.Run(context.Background(), input(nil))
				require.ErrorIs(t, err, agents.ErrEmptyReply)
				assert.Contains(t, err.Error(), srv.URL)
				assert.Len(t, srv.Requests(), 1, "an empty reply is not retried by default")
			})
		}
	}
	t.Run("openai no choices", func(t *testing.T) {
		srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
			fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`)
		})
		a := mustBuild(t, llm.Options{Getenv: protos[0].env}, protos[0].agent(srv.URL))
		_, err := a.Run(context.Background(), input(nil))
		require.ErrorIs(t, err, agents.ErrEmptyReply)
	})
}

func TestModelURLForms(t *testing.T) {
	for _, tc := range []struct {
		prov, url, want string
	}{
		{"lm_studio", "http://h:1234", "http://h:1234/v1"},
		{"lm_studio", "http://h:1234/", "http://h:1234/v1"},
		{"lm_studio", "http://h:1234/v1/chat/completions", "http://h:1234/v1"},
		{"openai_compatible", "https://gw.example/api/v1", "https://gw.example/api/v1"},
		{"openai", "https://api.openai.com/v1/", "https://api.openai.com/v1"},
		{"ollama", "http://h:11434/api/generate", "http://h:11434"},
		{"ollama", "http://h:11434/", "http://h:11434"},
		{"ollama", "", llm.DefaultOllamaURL},
		{"lm_studio", "", "http://localhost:1234/v1"},
		{"lm_studio", "http://user:pw@h:1234", "http://user:xxxxx@h:1234/v1"},
		{"googleai", "", llm.DefaultGoogleAIURL},
		{"anthropic", "", llm.DefaultAnthropicURL},
	} {
		m, err := llm.NewModel(llm.Config{Provider: llm.Provider(tc.prov), URL: tc.url, Getenv: env()})
		require.NoError(t, err, tc.url)
		assert.Equal(t, tc.want, m.URL(), "%s %s", tc.prov, tc.url)
	}
	for _, tc := range []struct{ prov, url, want string }{
		{"openai_compatible", "", "needs model_url"},
		{"ollama", "localhost:11434", "must start with http"},
		{"ollama", "ftp://h", "must start with http"},
		{"ollama", "http://", "no host"},
		{"ollama", "http://h/?x=1", "query"},
		{"bard", "", "unknown provider"},
	} {
		_, err := llm.NewModel(llm.Config{Provider: llm.Provider(tc.prov), URL: tc.url, Getenv: env()})
		require.Error(t, err, "%s %s", tc.prov, tc.url)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestUsageNormalisation(t *testing.T) {
	assert.Equal(t, spend.Usage{PromptTokens: 3, CompletionTokens: 4}, llm.Usage(map[string]any{"PromptTokens": 3, "CompletionTokens": 4}))
	assert.Equal(t, spend.Usage{PromptTokens: 5, CompletionTokens: 6}, llm.Usage(map[string]any{"InputTokens": 5, "OutputTokens": 6}))
	assert.Equal(t, spend.Usage{PromptTokens: 7, CompletionTokens: 8}, llm.Usage(map[string]any{"PromptTokens": int32(7), "CompletionTokens": int32(8)}))
	assert.Equal(t, spend.Usage{}, llm.Usage(nil))
}

func TestParseProvider(t *testing.T) {
	for in, want := range map[string]llm.Provider{"lmstudio": llm.LMStudio, "LM_Studio": llm.LMStudio, "openai-compatible": llm.OpenAICompatible, "gemini": llm.GoogleAI, " ollama ": llm.Ollama} {
		got, err := llm.ParseProvider(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

func TestResponseCutShortIsRetried(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if n == 1 {
			conn, buf, err := w.(http.Hijacker).Hijack()
			require.NoError(t, err)
			fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"id\": \"chatcmpl-1\", \"choi")
			_ = buf.Flush()
			_ = conn.Close()
			return
		}
		agenttest.WriteChatReply(w, "whole", 1, 1)
	})
	sl := &fakeSleep{}
	rec := &recorder{}
	a := mustBuild(t, llm.Options{Getenv: protos[0].env, Sleep: sl.Sleep}, protos[0].agent(srv.URL))
	out, err := a.Run(context.Background(), input(rec))
	require.NoError(t, err)
	assert.Equal(t, "whole", out.Response)
	require.Len(t, rec.Events(), 1)
	assert.Equal(t, "server_error", rec.Events()[0].Data["class"])
	assert.NotContains(t, rec.Events()[0].Data, "status", "a 200 whose body broke reports no status")
}

// TestGoogleAIThroughTheOpenAIProtocol: googleai speaks Gemini's
// OpenAI-compatible endpoint with GOOGLE_API_KEY (or GEMINI_API_KEY) as bearer.
func TestGoogleAIThroughTheOpenAIProtocol(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, "from gemini", 5, 6)
	})
	for _, e := range [][]string{{"GOOGLE_API_KEY", "g-key"}, {"GEMINI_API_KEY", "g-key"}} {
		a := mustBuild(t, llm.Options{Getenv: env(e...)},
			"id: x\ntype: llm\nprovider: googleai\nmodel: gemini-2.0-flash\nmodel_url: "+srv.URL+"/v1beta/openai/\nmax_tokens: 64\nprompt: hi\n")
		out, err := a.Run(context.Background(), input(nil))
		require.NoError(t, err)
		assert.Equal(t, "from gemini", out.Response)
		assert.Equal(t, spend.Usage{PromptTokens: 5, CompletionTokens: 6}, out.Usage)
	}
	for _, r := range srv.Requests() {
		assert.Equal(t, "/v1beta/openai/chat/completions", r.Path)
		assert.Equal(t, "Bearer g-key", r.Header.Get("Authorization"))
		assert.Equal(t, "gemini-2.0-flash", r.Body["model"])
		assert.EqualValues(t, 64, r.Body["max_tokens"])
	}
}

// TestAnthropicMessages: the anthropic client's usage keys are normalised,
// max_tokens is always sent, and an echoed x-api-key is scrubbed.
func TestAnthropicMessages(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if n == 2 {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`, r.Header.Get("x-api-key"))
			return
		}
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
"content":[{"type":"text","text":"Bonjour"}],"stop_reason":"end_turn","usage":{"input_tokens":7,"output_tokens":3}}`)
	})
	a := mustBuild(t, llm.Options{Getenv: env("ANTHROPIC_API_KEY", "sk-ant-secret-1")},
		"id: x\ntype: llm\nprovider: anthropic\nmodel: claude-test\ntemperature: 0\nmodel_url: "+srv.URL+"/v1\nprompt: hi\n")
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, "Bonjour", out.Response)
	assert.Equal(t, spend.Usage{PromptTokens: 7, CompletionTokens: 3}, out.Usage)
	req := srv.Requests()[0]
	assert.Equal(t, "/v1/messages", req.Path)
	assert.Equal(t, "sk-ant-secret-1", req.Header.Get("x-api-key"))
	assert.EqualValues(t, llm.DefaultAnthropicMaxTokens, req.Body["max_tokens"])
	temp, ok := req.Body["temperature"]
	assert.True(t, ok, "temperature 0 is sent: %s", req.Raw)
	assert.EqualValues(t, 0, temp)

	_, err = a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 401")
	assert.Contains(t, err.Error(), "invalid x-api-key [REDACTED:ANTHROPIC_API_KEY]")
	assert.NotContains(t, chain(err), "sk-ant-secret-1")
}
