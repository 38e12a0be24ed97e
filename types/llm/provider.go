package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
)

// Provider names a model API.
type Provider string

// Providers. lm_studio and openai_compatible speak the OpenAI wire protocol.
const (
	OpenAI           Provider = "openai"
	OpenAICompatible Provider = "openai_compatible"
	LMStudio         Provider = "lm_studio"
	Ollama           Provider = "ollama"
	Anthropic        Provider = "anthropic"
	GoogleAI         Provider = "googleai"
)

// Providers lists every provider, for messages.
var Providers = []Provider{OpenAI, OpenAICompatible, LMStudio, Ollama, Anthropic, GoogleAI}

// ParseProvider reads a provider name, case-insensitively, with the aliases
// lmstudio, openai-compatible, google and gemini.
func ParseProvider(s string) (Provider, error) {
	switch p := strings.ToLower(strings.TrimSpace(s)); p {
	case "openai":
		return OpenAI, nil
	case "openai_compatible", "openai-compatible":
		return OpenAICompatible, nil
	case "lm_studio", "lmstudio", "lm-studio":
		return LMStudio, nil
	case "ollama":
		return Ollama, nil
	case "anthropic":
		return Anthropic, nil
	case "googleai", "google", "gemini":
		return GoogleAI, nil
	}
	names := make([]string, len(Providers))
	for i, p := range Providers {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown provider %q (known: %s)", s, strings.Join(names, ", "))
}

// Environment variables read by the providers.
const (
	envOpenAIKey     = "OPENAI_API_KEY"
	envOpenAIBaseURL = "OPENAI_BASE_URL"
	envOpenAIModel   = "BASE_OPENAI_MODEL" // OrKa's default model for openai-answer & co.
	envAnthropicKey  = "ANTHROPIC_API_KEY"
	envGoogleKey     = "GOOGLE_API_KEY"
	envGeminiKey     = "GEMINI_API_KEY" // read when GOOGLE_API_KEY is not set
)

// Default base URLs.
const (
	defaultOpenAIURL    = "https://api.openai.com/v1"
	defaultLMStudioURL  = "http://localhost:1234"
	DefaultOllamaURL    = "http://localhost:11434"
	DefaultAnthropicURL = "https://api.anthropic.com/v1"
	// DefaultGoogleAIURL is Gemini's OpenAI-compatible endpoint.
	DefaultGoogleAIURL = "https://generativelanguage.googleapis.com/v1beta/openai"
)

// DefaultAnthropicMaxTokens is sent when a call to Anthropic sets no max_tokens
// (the Messages API requires one).
const DefaultAnthropicMaxTokens = 4096

// Config describes one provider endpoint.
type Config struct {
	Provider Provider
	// Model is the default model name; a request's Model wins. For OpenAI an
	// empty model falls back to $BASE_OPENAI_MODEL at call time, as OrKa does.
	Model string
	// URL is the base URL; empty means the provider's default (OpenAI:
	// $OPENAI_BASE_URL, else api.openai.com). OpenAI-protocol URLs may end in
	// /v1 or /v1/chat/completions; a bare host gets /v1. Ollama URLs may end in
	// /api/generate or /api/chat.
	URL string
	// APIKey, when set, is the key; otherwise the key is read at call time from
	// APIKeyEnv, or the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY,
	// GOOGLE_API_KEY, then GEMINI_API_KEY). lm_studio and openai_compatible read no variable unless
	// APIKeyEnv names one, so an OpenAI key never goes to a third-party server.
	APIKey    secrets.Secret
	APIKeyEnv string
	// HTTPClient makes the calls; nil means [DefaultHTTPClient].
	HTTPClient *http.Client
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// DefaultHTTPClient returns the client used when none is given: one over the
// process's shared transport ([SizePool]), so every agent, embedder and
// validator of every workflow draws on one connection pool. No overall
// timeout: an agent's timeout is its context's deadline, which also covers
// retries.
func DefaultHTTPClient() *http.Client {
	return &http.Client{Transport: sharedTransport()}
}

// Model is a provider endpoint behind [agents.Model]. Building one checks the
// provider and URL but needs no API key and makes no call: the key is read and
// the langchaingo client built on the first Generate, so `cogloop validate`
// works without keys. A Model is safe for concurrent use.
type Model struct {
	cfg     Config
	base    string // the base URL the client uses
	display string // base with any userinfo redacted, for messages
	http    *http.Client

	mu     sync.Mutex
	client llms.Model
	compat llms.Model // Ollama's OpenAI-protocol client, for tool rounds
	key    secrets.Secret
}

var _ agents.Model = (*Model)(nil)

// NewModel checks c and returns its model. Errors are about the provider or the
// URL; a missing key is reported by Generate.
func NewModel(c Config) (*Model, error) {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	p, err := ParseProvider(string(c.Provider))
	if err != nil {
		return nil, err
	}
	c.Provider = p
	raw := strings.TrimSpace(c.URL)
	what := "model_url"
	if raw == "" {
		switch p {
		case OpenAI:
			raw = strings.TrimSpace(c.Getenv(envOpenAIBaseURL))
			if raw != "" {
				what = "the environment variable " + envOpenAIBaseURL
			}
			if raw == "" {
				raw = defaultOpenAIURL
			}
		case LMStudio:
			raw = defaultLMStudioURL
		case Ollama:
			raw = DefaultOllamaURL
		case Anthropic:
			raw = DefaultAnthropicURL
		case GoogleAI:
			raw = DefaultGoogleAIURL
		case OpenAICompatible:
			return nil, errors.New("provider openai_compatible needs model_url (the server's base URL, e.g. http://localhost:8000/v1)")
		}
	}
	m := &Model{cfg: c}
	if raw != "" {
		u, err := checkURL(what, raw)
		if err != nil && what != "model_url" {
			return nil, fmt.Errorf("%w (it is the base URL when model_url is not set: fix or unset it, or set model_url)", err)
		}
		if err != nil {
			return nil, err
		}
		switch p {
		case OpenAI, OpenAICompatible, LMStudio, GoogleAI:
			u.Path = openAIPath(u.Path)
		case Ollama:
			u.Path = ollamaPath(u.Path)
		default:
			u.Path = strings.TrimRight(u.Path, "/")
		}
		m.base = u.String()
		m.display = u.Redacted()
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = DefaultHTTPClient()
	}
	m.http = recording(hc)
	return m, nil
}

// checkURL parses raw, the value of what (model_url, or the environment
// variable it came from), as a model server's base URL.
func checkURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a URL: %w", what, redactURL(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %q must start with http:// or https://", what, u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s %q has no host", what, u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q must not have a query or fragment", what, u.Redacted())
	}
	return u, nil
}

func redactURL(raw string) string {
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			return raw[:j+3] + "[redacted]" + raw[i:]
		}
	}
	return raw
}

// openAIPath turns what users write (host, /v1, /v1/chat/completions) into the
// base path langchaingo appends /chat/completions to.
func openAIPath(p string) string {
	p = strings.TrimRight(p, "/")
	p = strings.TrimSuffix(p, "/chat/completions")
	p = strings.TrimRight(p, "/")
	if p == "" {
		p = "/v1"
	}
	return p
}

// ollamaPath strips the endpoint OrKa users write (…/api/generate) so that
// langchaingo can append /api/chat.
func ollamaPath(p string) string {
	p = strings.TrimRight(p, "/")
	for _, s := range []string{"/api/generate", "/api/chat", "/api"} {
		if strings.HasSuffix(p, s) {
			return strings.TrimSuffix(p, s)
		}
	}
	return p
}

// Provider is the model's provider.
func (m *Model) Provider() Provider { return m.cfg.Provider }

// URL is the base URL calls go to (userinfo redacted).
func (m *Model) URL() string { return m.display }

// String describes the model for messages: `ollama model "llama3" at http://…`.
func (m *Model) String() string { return m.describe(m.cfg.Model) }

func (m *Model) describe(model string) string {
	if model == "" {
		return fmt.Sprintf("%s at %s", m.cfg.Provider, m.display)
	}
	return fmt.Sprintf("%s model %q at %s", m.cfg.Provider, model, m.display)
}

// keyEnv is the variable the key is read from, "" when the provider reads none.
func (m *Model) keyEnv() string {
	if m.cfg.APIKeyEnv != "" {
		return m.cfg.APIKeyEnv
	}
	switch m.cfg.Provider {
	case OpenAI:
		return envOpenAIKey
	case Anthropic:
		return envAnthropicKey
	case GoogleAI:
		return envGoogleKey
	}
	return ""
}

// MissingKey names the environment variable a call would need and that is
// not set ("" when the model has its key or needs none): what `cogloop
// validate` warns about before anything runs.
func (m *Model) MissingKey() string {
	if m == nil || !m.foundKey().IsZero() || m.cfg.Provider == Ollama {
		return ""
	}
	if m.cfg.Provider == GoogleAI && m.cfg.APIKeyEnv == "" {
		return envGoogleKey + " (or " + envGeminiKey + ")"
	}
	return m.keyEnv()
}

// foundKey is the key apiKey returns when there is one, zero otherwise,
// without building apiKey's error (Secrets asks on every call).
func (m *Model) foundKey() secrets.Secret {
	if !m.cfg.APIKey.IsZero() {
		return m.cfg.APIKey
	}
	if env := m.keyEnv(); env != "" {
		if v := m.cfg.Getenv(env); v != "" {
			return secrets.NewNamed(env, v)
		}
	}
	if m.cfg.Provider == GoogleAI && m.cfg.APIKeyEnv == "" {
		if v := m.cfg.Getenv(envGeminiKey); v != "" {
			return secrets.NewNamed(envGeminiKey, v)
		}
	}
	return secrets.Secret{}
}

func (m *Model) apiKey() (secrets.Secret, error) {
	if k := m.foundKey(); !k.IsZero() {
		return k, nil
	}
	env := m.keyEnv()
	if m.cfg.Provider == GoogleAI && m.cfg.APIKeyEnv == "" {
		return secrets.Secret{}, fault.Fatal(fmt.Errorf("no API key for %s", m.cfg.Provider),
			fmt.Sprintf("set the environment variable %s (or %s)", envGoogleKey, envGeminiKey))
	}
	switch {
	case m.cfg.Provider == Ollama:
		return secrets.Secret{}, nil
	case m.cfg.APIKeyEnv != "":
		return secrets.Secret{}, fault.Fatal(fmt.Errorf("no API key for %s (api_key_env names %s)", m.cfg.Provider, env),
			"set the environment variable "+env)
	case env != "":
		return secrets.Secret{}, fault.Fatal(fmt.Errorf("no API key for %s", m.cfg.Provider),
			"set the environment variable "+env)
	}
	return secrets.Secret{}, nil
}

// authFix is what to do when the server refused the call's credentials (401/403).
func (m *Model) authFix(status int) string {
	var key string
	switch env := m.keyEnv(); {
	case !m.cfg.APIKey.IsZero():
		key = "the API key given to the agent"
	case env != "":
		key = "the API key in " + env
	default:
		return fmt.Sprintf("%s at %s wants credentials: name the variable holding its key with api_key_env", m.cfg.Provider, m.display)
	}
	if status == http.StatusForbidden {
		return "check that " + key + " may use this model"
	}
	return "check " + key + "; the server does not accept it"
}

// modelFix is what to do when the server does not know the model (404).
func (m *Model) modelFix(model string) string {
	if m.cfg.Provider == Ollama {
		return fmt.Sprintf("check the model name %q (ollama pull %s) and model_url", model, model)
	}
	return fmt.Sprintf("check the model name %q and model_url", model)
}

// Secrets returns the keys the model uses or would use, for scrubbing text
// that may echo them.
func (m *Model) Secrets() []secrets.Secret {
	m.mu.Lock()
	used := m.key
	m.mu.Unlock()
	var out []secrets.Secret
	for _, k := range []secrets.Secret{used, m.cfg.APIKey} {
		if !k.IsZero() {
			out = append(out, k)
		}
	}
	if k := m.foundKey(); !k.IsZero() {
		out = append(out, k)
	}
	return out
}

func (m *Model) llm() (llms.Model, secrets.Secret, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.client != nil {
		return m.client, m.key, nil
	}
	key, err := m.apiKey()
	if err != nil {
		return nil, secrets.Secret{}, err
	}
	var c llms.Model
	switch m.cfg.Provider {
	case OpenAI, OpenAICompatible, LMStudio, GoogleAI:
		token := key.Reveal()
		if token == "" {
			// langchaingo insists on a token; local servers ignore it.
			token = "not-needed"
		}
		c, err = openai.New(openai.WithToken(token), openai.WithBaseURL(m.base),
			openai.WithModel(m.cfg.Model), openai.WithHTTPClient(m.http))
	case Ollama:
		c, err = ollama.New(ollama.WithServerURL(m.base), ollama.WithModel(m.cfg.Model), ollama.WithHTTPClient(m.http))
	case Anthropic:
		c, err = anthropic.New(anthropic.WithToken(key.Reveal()), anthropic.WithBaseURL(m.base),
			anthropic.WithModel(m.cfg.Model), anthropic.WithHTTPClient(m.http))
	}
	if err != nil {
		return nil, secrets.Secret{}, retry.Permanent(fmt.Errorf("set up %s client: %w", m.cfg.Provider, secrets.ScrubError(err, key)))
	}
	m.client, m.key = c, key
	return c, key, nil
}

// ollamaTools is the OpenAI-protocol client of an Ollama server (its /v1
// endpoint), which takes tools; made on first use.
func (m *Model) ollamaTools(key secrets.Secret) (llms.Model, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compat != nil {
		return m.compat, nil
	}
	token := key.Reveal()
	if token == "" {
		token = "ollama" // Ollama ignores it; langchaingo insists on one
	}
	c, err := openai.New(openai.WithToken(token), openai.WithBaseURL(strings.TrimRight(m.base, "/")+"/v1"),
		openai.WithModel(m.cfg.Model), openai.WithHTTPClient(m.http))
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("set up %s client for tools: %w", m.cfg.Provider, secrets.ScrubError(err, key)))
	}
	m.compat = c
	return c, nil
}

func (m *Model) modelName(req string) (string, error) {
	if req != "" {
		return req, nil
	}
	if m.cfg.Model != "" {
		return m.cfg.Model, nil
	}
	if m.cfg.Provider == OpenAI {
		if v := m.cfg.Getenv(envOpenAIModel); v != "" {
			return v, nil
		}
		return "", fault.Fatal(fmt.Errorf("no model for %s", m.describe("")), "set model in the agent or the environment variable "+envOpenAIModel)
	}
	return "", fault.Fatal(fmt.Errorf("no model for %s", m.describe("")), "set model in the agent")
}

// Generate sends req through langchaingo. Temperature is always passed
// explicitly; usage is normalised from the provider's generation info. A
// failure is an *[retry.CallError] carrying the HTTP status and Retry-After of
// the response (recorded by the transport, since langchaingo's errors drop
// them), with a message that names the provider, model and URL and never holds
// the API key.
func (m *Model) Generate(ctx context.Context, req agents.Request) (agents.Reply, error) {
	model, err := m.modelName(req.Model)
	if err != nil {
		return agents.Reply{}, err
	}
	client, key, err := m.llm()
	if err != nil {
		return agents.Reply{}, fmt.Errorf("call %s: %w", m.describe(model), err)
	}
	msgs := m.messages(req)
	opts := []llms.CallOption{llms.WithModel(model), llms.WithTemperature(req.Temperature)}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 && m.cfg.Provider == Anthropic {
		maxTokens = DefaultAnthropicMaxTokens
	}
	compat := m.cfg.Provider == LMStudio || m.cfg.Provider == OpenAICompatible || m.cfg.Provider == GoogleAI
	tooling := len(req.Tools) > 0 || len(req.Messages) > 0
	if m.cfg.Provider == Ollama && tooling {
		// langchaingo's ollama client (v0.1.14) sends no tools: tool rounds go
		// to Ollama's OpenAI-compatible endpoint instead.
		if client, err = m.ollamaTools(key); err != nil {
			return agents.Reply{}, fmt.Errorf("call %s: %w", m.describe(model), err)
		}
		compat = true
	}
	if maxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(maxTokens))
		if compat {
			// OpenAI-compatible servers know max_tokens, not always max_completion_tokens.
			opts = append(opts, openai.WithLegacyMaxTokensField())
		}
	}
	opts = append(opts, toolOptions(req)...)
	ex := &exchange{limit: replyLimit(req.MaxReplyBytes)}
	var sr *streamed
	if req.OnDelta != nil && len(req.Tools) == 0 {
		sr = m.stream(ex, req.OnDelta, compat)
		opts = append(opts, llms.WithStreamingFunc(sr.chunk))
	}
	opts = append(opts, m.schemaOptions(req)...)
	resp, err := client.GenerateContent(context.WithValue(ctx, exchangeKey{}, ex), msgs, opts...)
	if err == nil {
		if st, _, _ := ex.get(); st >= 400 {
			// langchaingo's ollama client reads an empty error body as success.
			err = errors.New("the server sent an error status with an empty body")
		}
	}
	if sr != nil {
		sr.finish()
	}
	ex.release()
	if ex.isOver() {
		return agents.Reply{}, retry.Permanent(tooLarge("call "+m.describe(model), req.Agent, ex.limit, sr != nil))
	}
	if sr != nil {
		if cut := sr.cut(ctx, err, "call "+m.describe(model), key, m.cfg.APIKey); cut != nil {
			return agents.Reply{}, cut
		}
	}
	if err != nil {
		return agents.Reply{}, m.fail(ctx, model, err, ex, key)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return agents.Reply{}, fmt.Errorf("call %s: %w", m.describe(model), agents.ErrEmptyReply)
	}
	rep := replyOf(m.cfg.Provider, resp, req.Tools)
	if sr != nil {
		rep.Text = sr.all
	}
	return rep, nil
}

var statusPrefix = regexp.MustCompile(`API returned unexpected status code: \d+(: )?`)

func (m *Model) fail(ctx context.Context, model string, err error, ex *exchange, key secrets.Secret) error {
	what := "call " + m.describe(model)
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	status, retryAfter, terr := ex.get()
	if errors.Is(err, openai.ErrEmptyResponse) || errors.Is(err, ollama.ErrEmptyResponse) ||
		errors.Is(err, anthropic.ErrEmptyResponse) || (status < 300 && err.Error() == "empty response") {
		return fmt.Errorf("%s: %w", what, agents.ErrEmptyReply)
	}
	if status < 400 {
		// A 2xx whose body could not be read: no status to report.
		status, retryAfter = 0, 0
	}
	text := err.Error()
	var class retry.Class
	switch {
	case terr != nil:
		// langchaingo's openai client hides transport errors behind a generic
		// message; the recorded one says what happened and to which URL.
		text = terr.Error()
		if status == 0 {
			class = retry.Classify(terr)
		}
	case status == 0:
		// The chain is dropped below (its text may hold the key): classify now,
		// so that a response cut short still counts as a server error.
		class = retry.Classify(err)
	}
	text = strings.TrimSpace(statusPrefix.ReplaceAllString(text, ""))
	text = fault.Truncate(secrets.Scrub(text, key, m.cfg.APIKey), 500)
	msg := what + ": "
	if status != 0 {
		msg += fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
		if text != "" {
			msg += ": "
		}
	}
	msg += text
	ce := &retry.CallError{Class: class, Status: status, RetryAfter: retryAfter, Err: errors.New(msg)}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fault.Fatal(ce, m.authFix(status))
	case http.StatusNotFound:
		return fault.Fatal(ce, m.modelFix(model))
	}
	return ce
}

// Usage normalises a langchaingo GenerationInfo: the OpenAI protocol and Ollama
// (whose prompt_eval_count/eval_count langchaingo maps) report
// PromptTokens/CompletionTokens, Anthropic InputTokens/OutputTokens.
func Usage(info map[string]any) spend.Usage {
	pick := func(keys ...string) int {
		for _, k := range keys {
			if n, ok := toInt(info[k]); ok && n > 0 {
				return n
			}
		}
		return 0
	}
	return spend.Usage{
		PromptTokens:     pick("PromptTokens", "InputTokens", "input_tokens", "prompt_tokens"),
		CompletionTokens: pick("CompletionTokens", "OutputTokens", "output_tokens", "completion_tokens"),
	}
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int32:
		return int(x), true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	case float32:
		return int(x), true
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

// exchange records what the transport saw for one call: the last response's
// status and Retry-After, or the transport error. langchaingo's clients do not
// surface these (the openai client even replaces transport errors with a generic
// message), so the model's http.Client records them through the request context.
type exchange struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	err        error

	// Set before the call: the reply's limit, whether it streams, and the
	// reader of an OpenAI-protocol stream's text (sse.go); over is set when
	// the reply went past the limit.
	limit    int64
	streamed bool
	text     *streamText
	over     bool
	// abort cancels the request of an OpenAI-protocol stream: it bounds the
	// wait for the end of the body after [DONE] (sse.go), and is called when
	// the call is over.
	abort context.CancelFunc
}

type exchangeKey struct{}

// release ends the call's request context, if the transport made one.
func (e *exchange) release() {
	e.mu.Lock()
	abort := e.abort
	e.mu.Unlock()
	if abort != nil {
		abort()
	}
}

func (e *exchange) get() (int, time.Duration, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.status, e.retryAfter, e.err
}

type recorder struct{ base http.RoundTripper }

func recording(c *http.Client) *http.Client {
	cp := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = recorder{base: base}
	return &cp
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	// The trace context of the calling agent's span (traceparent), when
	// the run is traced; a RoundTripper must not change the caller's request.
	if h := make(http.Header); agents.AddRequestHeaders(req.Context(), h) {
		req = req.Clone(req.Context())
		for k, v := range h {
			req.Header[k] = v
		}
	}
	ex, ok := req.Context().Value(exchangeKey{}).(*exchange)
	if ok && ex.text != nil {
		ctx, cancel := context.WithCancel(req.Context())
		req = req.WithContext(ctx)
		ex.mu.Lock()
		ex.abort = cancel
		ex.mu.Unlock()
	}
	resp, err := r.base.RoundTrip(req)
	if ok {
		ex.mu.Lock()
		if err != nil {
			ex.status, ex.retryAfter, ex.err = 0, 0, err
		} else {
			ex.status, ex.retryAfter, ex.err = resp.StatusCode, retryAfterOf(resp.Header, time.Now()), nil
		}
		ex.mu.Unlock()
		if err == nil {
			ex.bound(resp)
		}
	}
	return resp, err
}

// retryAfterOf reads retry-after-ms (OpenAI) or Retry-After.
func retryAfterOf(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	return retry.ParseAfter(h.Get("Retry-After"), now)
}
