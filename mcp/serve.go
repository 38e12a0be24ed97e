package mcp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Offer is one tool a [Host] offers: a workflow, run once per call.
type Offer struct {
	// Name is the tool's name (the workflow's orchestrator id).
	Name        string
	Description string
	// InputSchema is the JSON Schema of the call's arguments (an object).
	InputSchema map[string]any
	// Run runs one call with the checked arguments. progress may be called
	// any number of times while it runs; ctx ends when the client cancels
	// the call or the server stops.
	Run func(ctx context.Context, args map[string]any, progress func(Progress)) Answer
}

// Progress is one progress notification: a message and what it is about
// (sent as the notification's _meta).
type Progress struct {
	Message string
	Meta    map[string]any
}

// Answer is a call's result: the text the client reads, the structured
// result beside it, and whether the call failed.
type Answer struct {
	Text       string
	Structured map[string]any
	Failed     bool
}

// ResultSchema is the output schema of every offered tool: the structured
// result of a run.
var ResultSchema = map[string]any{
	"type":     "object",
	"required": []any{"status", "run_id", "loops"},
	"properties": map[string]any{
		"status": map[string]any{"type": "string", "description": "ok, failed, waiting or paused"},
		"run_id": map[string]any{"type": "string"},
		"error":  map[string]any{"type": "string"},
		"loops": map[string]any{"type": "array", "items": map[string]any{
			"type":     "object",
			"required": []any{"loop", "loops_completed", "stop_reason"},
			"properties": map[string]any{
				"loop":            map[string]any{"type": "string", "description": "the loop's path"},
				"loops_completed": map[string]any{"type": "integer"},
				"final_score":     map[string]any{"type": "number"},
				"stop_reason":     map[string]any{"type": "string"},
			},
		}},
	},
}

// Host offers workflows as MCP tools over stdio or streamable HTTP: the
// server side of MCP.
type Host struct {
	s *sdk.Server
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// NewHost is a server offering each of offers as a tool; two offers of
// one name, or a name MCP does not allow, are an error.
func NewHost(version string, offers []Offer) (*Host, error) {
	s := sdk.NewServer(&sdk.Implementation{Name: "cogloop", Version: version}, nil)
	seen := map[string]bool{}
	var errs []error
	for _, o := range offers {
		switch {
		case !toolName.MatchString(o.Name):
			errs = append(errs, fmt.Errorf("workflow id %q cannot be an MCP tool name (letters, digits, _, - and . only, at most 128): change the orchestrator's id", o.Name))
			continue
		case seen[o.Name]:
			errs = append(errs, fmt.Errorf("two workflows have the id %q: MCP tools are named by it, so give each orchestrator its own id", o.Name))
			continue
		}
		seen[o.Name] = true
		schema, err := compile(o.InputSchema)
		if err != nil {
			errs = append(errs, fmt.Errorf("workflow %q: its input schema does not compile: %w", o.Name, err))
			continue
		}
		s.AddTool(&sdk.Tool{Name: o.Name, Description: o.Description, InputSchema: o.InputSchema, OutputSchema: ResultSchema},
			handler(o, schema))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Host{s: s}, nil
}

// handler runs o for one call: arguments checked against its schema
// (a mismatch is a tool error the client reads), progress sent when the
// client asked for it with a progress token.
func handler(o Offer, schema *jsonschema.Schema) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := check(schema, nil, string(req.Params.Arguments))
		if err != nil {
			return &sdk.CallToolResult{IsError: true,
				Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("workflow %s: %v", o.Name, err)}}}, nil
		}
		token := req.Params.GetProgressToken()
		var n atomic.Int64
		progress := func(p Progress) {
			if token == nil || ctx.Err() != nil {
				return
			}
			// A notification that cannot be sent (the client went away) is
			// not the run's failure; the end of ctx stops the run.
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(n.Add(1)), Message: p.Message, Meta: p.Meta})
		}
		a := o.Run(ctx, args, progress)
		res := &sdk.CallToolResult{IsError: a.Failed, Content: []sdk.Content{&sdk.TextContent{Text: a.Text}}}
		if a.Structured != nil {
			res.StructuredContent = a.Structured
		}
		return res, nil
	}
}

// maxLine bounds one JSON-RPC message on stdio.
const maxLine = 4 << 20

// ServeStdio serves one client on r and w (the process's stdin and
// stdout) until the client closes r or ctx ends.
func (s *Host) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	err := s.s.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w, MaxLineLength: maxLine})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler serves streamable HTTP. A non-empty token is required as
// "Authorization: Bearer TOKEN" on every request (compared in constant
// time); without one the handler asks for none.
func (s *Host) Handler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.s },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: maxLine})
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cogloop"`)
			http.Error(w, "cogloop mcp serve: this server needs Authorization: Bearer TOKEN (the --token it was started with)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TextInputSchema is the input schema of a workflow that declares no
// inputs: one string, its input.
func TextInputSchema() map[string]any {
	return map[string]any{"type": "object", "required": []any{"input"},
		"properties": map[string]any{"input": map[string]any{"type": "string", "description": "the workflow's input"}}}
}
