package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (an SDK server we run as a
// child process) when COGLOOP_MCP_SERVER names a mode.
func TestMain(m *testing.M) {
	switch os.Getenv("COGLOOP_MCP_SERVER") {
	case "":
		os.Exit(m.Run())
	case "serve":
		if f := os.Getenv("COGLOOP_MCP_PIDS"); f != "" {
			// a grandchild in the server's process group, which must die with it
			child := exec.Command("sleep", "600")
			if err := child.Start(); err != nil {
				os.Exit(3)
			}
			pids := fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)
			if err := os.WriteFile(f, []byte(pids), 0o600); err != nil {
				os.Exit(3)
			}
		}
		_ = testServer().Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	case "hang":
		select {} // never answers initialize
	case "garbage":
		fmt.Println("{this is not JSON-RPC")
		fmt.Fprintln(os.Stderr, "wrote garbage")
		select {}
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot open the database")
		os.Exit(1)
	}
	os.Exit(2)
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type echoIn struct {
	Message string `json:"message"`
}

// testServer is an SDK server with the tools the tests call.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "weather", Description: "Text and structured content that differ."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "sunny"}},
				StructuredContent: map[string]any{"temp": 21}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "picture", Description: "A picture and a resource."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"}},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk full"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "stall", Description: "Never answers."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "The server exits in the middle of the call."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "out of memory in die")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "whoami", Description: "The Authorization header it got."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			auth := ""
			if req.Extra != nil && req.Extra.Header != nil {
				auth = req.Extra.Header.Get("Authorization")
			}
			text := fmt.Sprintf("bearer %t, %s bytes", strings.HasPrefix(auth, "Bearer "), strconv.Itoa(len(auth)))
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
		})
	return s
}

// httpServer serves testServer over streamable HTTP.
func httpServer() http.Handler {
	s := testServer()
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
}
