package cogloop_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxExported is how many top-level names a package may export: every exported
// type, function, constant and variable name counts, each name of a constant
// block on its own.
const maxExported = 40

// overExported names the packages allowed above maxExported, and why.
var overExported = map[string]string{
	// Submit's functional options (a field could not tell MaxRetry(0) from
	// "the default"), the defaults the CLI prints in its flags, and the run
	// states callers switch on.
	"app/queue": "9 submit options and Option, 6 defaults shown by the CLI, 8 run states",
	// The model seam's shapes (Request, Reply, ToolSpec, ToolCall, Message,
	// ResponseSchema, Tool) sit beside Model and Agent so that providers, the
	// tool loop, structured output and MCP share one vocabulary.
	"agents": "the agent contract plus the model seam's 7 request/reply/tool shapes",
	// The key builder's eight kinds (one per Redis structure, enumerated by
	// its tests) and the run lease, an optional store ability with its two
	// errors and its holder error, beside the Store interfaces they belong to.
	"memory": "8 key kinds and the lease ability's 4 names",
	// The façade: loading and run options and the result, plus the steering
	// API the CLI and serve share (Answer, RequestPause, ListWaiting,
	// WithHuman, the waiting and paused statuses and the errors callers act
	// on), which only the root package can offer (it runs workflows).
	".": "load/run options and results, plus the 10 names of the steering API (issue 25)",
}

// TestExportedNamesPerPackage keeps packages small: no package exports more than
// maxExported top-level names unless overExported says why.
func TestExportedNamesPerPackage(t *testing.T) {
	counts := map[string][]string{}
	for dir, files := range sourceFiles(t) {
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			if f.Name.Name != "main" {
				counts[dir] = append(counts[dir], exportedNames(f)...)
			}
		}
	}
	require.Greater(t, len(counts), 20, "the walk found the module's packages")
	dirs := make([]string, 0, len(counts))
	for d := range counts {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		n := len(counts[d])
		if why, ok := overExported[d]; ok {
			assert.Greater(t, n, maxExported, "%s is within %d exported names now: drop it from overExported (%s)", d, maxExported, why)
			continue
		}
		assert.LessOrEqual(t, n, maxExported, "package %s exports %d top-level names (limit %d): split it by concern or unexport what nobody outside uses: %s",
			d, n, maxExported, strings.Join(counts[d], " "))
	}
}

// exportedNames lists the exported top-level names f declares (methods excluded).
func exportedNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
