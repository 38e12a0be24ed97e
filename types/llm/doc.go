// Package llm holds cogloop's LLM agents and the only code that imports
// langchaingo. Each provider is wrapped as an [agents.Model] ([Model], built by
// [NewModel]); the agent types are registered on an [agents.Registry] by
// [Register]:
//
//   - openai-answer, openai-binary, openai-classification: OrKa's OpenAI agents.
//     The model is the agent's model key, else $BASE_OPENAI_MODEL; the key is
//     $OPENAI_API_KEY; the base URL model_url, else $OPENAI_BASE_URL.
//   - local_llm: provider ollama, lm_studio (lmstudio) or openai_compatible, with
//     model (default llama3.2:latest), model_url, temperature, max_tokens, timeout.
//   - llm: any provider — openai, openai_compatible, lm_studio, ollama,
//     anthropic ($ANTHROPIC_API_KEY), googleai ($GOOGLE_API_KEY or $GEMINI_API_KEY).
//   - scripted: answers from its responses list, one per call, for offline
//     examples and tests.
//
// # Behaviour
//
// An agent renders its prompt once per call, then asks its model: the run's
// model source when there is one (cogloop run --script), else its provider.
// Temperature is always sent (default 0.7; 0 is sent as 0, unlike OrKa, which
// turns 0 into 0.7). The call, its retries and the waits between them are bounded
// by the agent's timeout (default 120s). Failures are retried by the agent's
// retry policy (default [retry.DefaultLLM]: exponential backoff with full
// jitter on 429, 5xx, connection failures and timeouts, honouring Retry-After;
// other 4xx are not retried); each retry is an agent.retry event. The agent reads
// its own retry: key (the same [retry.Policy] any agent takes, with
// retry.DefaultLLM for the keys left out) and retries around each model call, so
// the prompt is rendered once and the timeout covers every attempt; the
// workflow builder leaves the key to it and does not wrap the agent again.
//
// # Budgets
//
// Each attempt first reserves its worst case ([agents.Request.WorstCase]: the estimated
// prompt plus max_tokens, or [spend.DefaultReserveTokens]) in the call's
// budget scope (Input.Budget) and every enclosing one; a call that does not fit
// is not made and fails with [spend.ErrBudgetExceeded]. The reply's usage is
// then counted, priced by the run's pricing table under the agent's model name
// ([Agent.Models]; the scripted type is free), and the output's Usage carries
// the cost.
//
// The reply becomes OrKa's output: response, confidence and internal_reasoning
// (see [ParseReply] for the JSON envelope and <think> handling), the prompt sent
// and token usage summed over attempts. openai-binary's response is a bool
// ([Affirmative]); openai-classification's is the option the reply names, or
// "not-classified". Those two append a one-line instruction ("Answer with
// only true or false.", "Answer with exactly one of these options: …") to the
// rendered prompt, as OrKa appends its constraints; answer agents send the
// prompt as rendered (OrKa also appends a JSON-envelope instruction and a dump
// of its context; cogloop does not).
// An empty reply is an error wrapping [agents.ErrEmptyReply].
//
// # Providers through langchaingo
//
// OpenAI-protocol providers use langchaingo's openai client: the base URL is the
// model_url with any /chat/completions removed and /v1 added to a bare host.
// lm_studio and openai_compatible get max_tokens (not max_completion_tokens) and
// send no key unless api_key or api_key_env gives one, so an OpenAI key never
// goes to another server. googleai also goes through the openai client, to
// Gemini's OpenAI-compatible endpoint ([DefaultGoogleAIURL]): langchaingo's
// googleai package would add gRPC, protobuf, OpenTelemetry and the Google Cloud
// SDK (about 30 modules, 26 MB of binary) for the same chat call. langchaingo
// omits temperature for the reasoning models gpt-5*, o1-* and o3*. Anthropic
// uses langchaingo's anthropic client (max_tokens defaults to
// [DefaultAnthropicMaxTokens], which the API requires). Ollama uses langchaingo's
// /api/chat client; a model_url ending in /api/generate (OrKa's form) is
// accepted. Token usage is read from langchaingo's generation info:
// PromptTokens/CompletionTokens (OpenAI protocol; Ollama's
// prompt_eval_count/eval_count) or InputTokens/OutputTokens (Anthropic).
//
// langchaingo's errors carry neither the HTTP status nor Retry-After, and its
// OpenAI client replaces transport errors with a generic message; the
// http.Client given to each provider therefore records the status, Retry-After
// (or retry-after-ms) and transport error of every call, through the request
// context, and [Model.Generate] returns them in an *[retry.CallError]. The same
// record catches an Ollama error status with an empty body, which langchaingo
// reads as an empty success. (langchaingo's Ollama client also ignores a stream
// cut short, so a partial Ollama reply can pass as complete.)
//
// # Streaming and model-call events
//
// When the run asks for deltas ([agents.Run].Deltas: cogloop run -v,
// cogloop.WithDeltas) each call is made with langchaingo's streaming callback
// (OpenAI SSE, Ollama NDJSON, Anthropic events) and the text is emitted as
// [event.AgentDelta] events as it arrives: coalesced (at most one per
// 50 ms or 256 bytes), scrubbed of the run's secrets and their near-copies,
// with the end held back (the last letters a near-copy could begin with)
// until the next chunk or the end so that a key split across chunks never
// leaks. The pieces of an attempt concatenate to its reply; usage is still
// read from the final chunk. Every stream's text is read by cogloop (sse.go,
// streamwire.go): langchaingo's clients append each piece to the reply with
// +=, quadratic in its length, so the transport takes the text-only lines
// (OpenAI chunks, read without encoding/json in their common shape by
// ssechunk.go; Ollama's NDJSON lines; Anthropic's text deltas) out of the
// stream into a strings.Builder and passes on the rest (finish reason, usage,
// tool calls, errors) for langchaingo to parse. After an OpenAI stream's
// [DONE] the body is read to its end, so that the connection is kept. A
// stream that ends because the context ended, or without its end (a finish
// reason or [DONE], Ollama's done line, Anthropic's message_stop), is a
// failed call whose error quotes what arrived, clipped. The scripted model streams
// word by word. Otherwise calls do not stream. When the
// run asks for model calls ([agents.Run].ModelCalls: a tracer provider is set)
// each attempt ends with an [event.ModelCall] event (provider, model,
// duration, usage, error), from which package telemetry builds the GenAI spans.
//
// # Bounded replies and the connection pool
//
// Every call's response body is capped at the request's MaxReplyBytes
// (max_reply_bytes, (4 MiB)) after the transport's transparent
// gzip decoding, by the model's own RoundTripper (limit.go); a streamed
// reply's text is held to it and its raw stream to 32 times it. A reply past
// the limit fails the call (not retried, not fatal) naming the agent, the
// limit and the key. Models built without an HTTP client share one transport
// (transport.go): 1,024 idle connections per host, raised by
// [SizePool], HTTP/2 where a TLS server offers it.
//
// # Tools
//
// An agent with Tools (tools: ids) runs model ↔ tools rounds in one call: a
// reply with tool calls has them run (in parallel, bounded), each as a step
// with its arguments as the template variable args, checked against the
// tool's schema first; results, scrubbed and capped at MaxReplyBytes (a
// tool_result_cut warning), go back as tool messages until a reply without
// calls, or a failure after MaxToolRounds rounds.
// Every round is reserved and counted in the budget like a call. What the
// model got wrong (an unknown tool, bad arguments, a failing tool) is a tool
// error it sees; only fatal failures stop the call. Events [event.ToolCall]
// and [event.ToolResult] report each call. The lookup of a tool by name is
// one method (Agent.tool), where MCP tools will plug in. Anthropic gets one
// tool_use turn per call (langchaingo's client reads one part per message);
// Ollama's tool rounds go to its OpenAI-compatible endpoint, since
// langchaingo's Ollama client (v0.1.14) sends no tools.
//
// # Structured output
//
// An agent with a [Schema] (output_schema, or OrKa's structured_output)
// asks for one JSON object: the prompt carries the schema as instructions,
// the request its [agents.ResponseSchema] (JSON mode for OpenAI and Ollama).
// The final reply of the call is parsed (bare, or in a ```json fence) and
// validated; a reply that fails goes back to the model as a repair round (the
// reply, then the first violation with its JSON path) at most MaxRepairs
// times, each round reserved in the budget and counted in the usage; then the
// call fails naming the violation. The object's fields land in the output's
// fields; its response (result, category) is the response.
//
// # Secrets
//
// API keys are [secrets.Secret] values, read from the environment at the first
// call (so loading and validating a workflow needs no key); a missing key is an
// error naming the variable. A key never appears in errors, events or logs:
// provider error text that echoes it is scrubbed.
//
// # Concurrency
//
// Agents and models are immutable after building, apart from the lazily built
// client (guarded by a mutex), and safe for concurrent use.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/retry,
// agents/scripted, agents/secrets, agents/spend, internal/jsonschemax,
// internal/perf, internal/pyvalue, memory, prompt and types/human.
package llm
