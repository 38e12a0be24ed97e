package cogloop_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavyDeps are what a program built on the loop node alone must not link
// (issue 27 item 7): each costs megabytes of binary through its package
// initialisation alone, whether or not the program calls it. A path ending
// in "/" is a module prefix, otherwise it is one package.
var heavyDeps = []string{
	"github.com/tmc/langchaingo/",             // the LLM providers
	"github.com/modelcontextprotocol/go-sdk/", // MCP
	"github.com/santhosh-tekuri/jsonschema/",  // tool and answer schemas
	"go.opentelemetry.io/",                    // tracing
	"google.golang.org/",                      // gRPC, protobuf
	"github.com/hibiken/asynq/",               // the queue
	"github.com/redis/go-redis/",              // the Redis store
	"net/http",                                // Go's HTTP client and TLS stack
}

// slimPackages are the packages a Go program that builds its loop by hand
// imports (bench/bareloop): the agent contract, the loop node, fork/join,
// the stores and the pure parts below them.
var slimPackages = []string{
	"./agents", "./agents/retry", "./agents/scripted", "./loopnode", "./types/flow",
	"./memory", "./memory/file", "./prompt", "./cognition/...", "./scoring",
}

// TestLoopNodeLinksNoSDK: the packages under the façade depend on no
// provider SDK, MCP, schema validator, OpenTelemetry, queue, Redis client or
// net/http, even indirectly, so a program built on them stays small
// (`cd bench && go run . -run binsize` measures it).
func TestLoopNodeLinksNoSDK(t *testing.T) {
	deps := goListDeps(t, slimPackages...)
	for _, d := range deps {
		for _, h := range heavyDeps {
			if d == h || strings.HasSuffix(h, "/") && strings.HasPrefix(d, h) {
				t.Errorf("%s is a dependency of %s: find the import with `go list -deps -f '{{.ImportPath}}: {{.Imports}}' %s` and move it behind a package of its own", d, strings.Join(slimPackages, " "), strings.Join(slimPackages, " "))
			}
		}
	}
}

// TestOrchestratorLinksNoMCP: the workflow builder reads mcp_servers through
// the reader cogloop gives it (orchestrator.WithToolServers), so it links
// neither the MCP SDK nor a provider SDK.
func TestOrchestratorLinksNoMCP(t *testing.T) {
	for _, d := range goListDeps(t, "./orchestrator") {
		for _, h := range []string{"github.com/modelcontextprotocol/go-sdk/", "github.com/tmc/langchaingo/", "go.opentelemetry.io/"} {
			if strings.HasPrefix(d, h) {
				t.Errorf("orchestrator depends on %s", d)
			}
		}
	}
}

// TestGoLoopLinksNoExporter: a Go program using the façade (examples/go/loop)
// links no OTLP exporter, gRPC, protobuf, queue or Redis client.
func TestGoLoopLinksNoExporter(t *testing.T) {
	for _, d := range goListDeps(t, "./examples/go/loop") {
		for _, h := range []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters/", "google.golang.org/", "github.com/hibiken/asynq", "github.com/redis/go-redis/"} {
			if strings.HasPrefix(d, h) {
				t.Errorf("examples/go/loop depends on %s", d)
			}
		}
	}
}

// TestCoreBuildLinksNoSDK: built with -tags cogloop_core, a Go program using
// the façade (examples/go/loop) depends on no provider SDK, MCP SDK, OTLP
// exporter, gRPC, net/http or JSON Schema validator (README "Binary size":
// 14.1 MB instead of 23).
func TestCoreBuildLinksNoSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "cogloop_core", "./examples/go/loop").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.True(t, slices.Contains(deps, "github.com/cogloop/cogloop"), "go list printed no dependencies")
	for _, d := range deps {
		for _, h := range []string{"github.com/tmc/langchaingo/", "github.com/modelcontextprotocol/go-sdk/", "go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters/", "google.golang.org/", "net/http", "github.com/santhosh-tekuri/jsonschema/"} {
			if d == h || strings.HasPrefix(d, h) {
				t.Errorf("examples/go/loop built with -tags cogloop_core depends on %s", d)
			}
		}
	}
}

// TestCoreBuild runs a program built with -tags cogloop_core: a Go loop
// runs as in a full build, and a workflow file with an agent type or
// mcp_servers the core build leaves out, a JSON Schema (tool parameters, a
// human's output_schema: the validator is left out too), or a Go provider, is
// refused with the reason and the fix.
func TestCoreBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (-short)")
	}
	bin := filepath.Join(t.TempDir(), "coreprog")
	build, err := exec.Command("go", "build", "-tags", "cogloop_core", "-o", bin, "./testdata/coreprog").CombinedOutput()
	require.NoError(t, err, "%s", build)
	out, err := exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 6, "%s", out)
	assert.Equal(t, "go loop: threshold after 3 passes: pass 3 SCORE: 0.9", lines[0])
	const why = "this program was built with -tags cogloop_core, which leaves out the agent types that call models, tools and the web and MCP servers: build it without the tag"
	assert.Equal(t, `yaml: wf.yaml:3:5: agent "a": agent type "openai-answer" is not in this program: `+why, lines[1])
	assert.Equal(t, "yaml: wf.yaml:1:36: workflow: orchestrator: mcp_servers: "+why, lines[2])
	const noSchema = "JSON Schema validation is not in this build (built with -tags cogloop_core): build without the tag"
	assert.Equal(t, `yaml: wf.yaml:3:28: agent "a": parameters (a tool's JSON Schema) cannot be checked: `+noSchema, lines[3])
	assert.Equal(t, `yaml: wf.yaml:3:49: agent "h": output_schema does not compile: `+noSchema, lines[4])
	assert.Equal(t, "provider: load option WithProvider: providers mine answer LLM agents, and "+why, lines[5])
}

// goListDeps lists the packages pkgs depend on (non-test imports).
func goListDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	require.NoError(t, err, "go list -deps %s", strings.Join(pkgs, " "))
	deps := strings.Fields(string(out))
	require.True(t, slices.Contains(deps, "github.com/cogloop/cogloop/agents"), "go list printed no dependencies of %s", strings.Join(pkgs, " "))
	return deps
}
