package cogloop_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layering is THE declaration of the import direction (DESIGN.md "Layout and
// import direction"), bottom layer first. A package may import only packages
// of LOWER layers, never one of its own layer or above. Every package of the
// module is in exactly one layer: adding a package is adding its path (module
// relative; "cogloop" is the root package) to the line of the layer it belongs
// to. "x/..." stands for every package under x (not x itself); a trailing "?"
// marks a package planned this session that may not exist yet.
var layering = []struct{ name, pkgs string }{
	{"the performance switches (PERF.md)", "internal/perf"},
	{"leaves (import no project package but internal/perf)", "internal/... cognition/internal/... agents/fault agents/secrets configs examples chaos memory/redis/redistest"},
	{"pure parts: text judgement, templates, stores, the config reader", "cognition prompt memory agents/load"},
	{"parts built on one pure part", "cognition/metrics memory/redis memory/storetest memory/file agents/lease agents/spend"},
	{"scoring and events", "cognition/scorer scoring agents/event"},
	{"the agent contract", "agents"},
	{"beside the contract: retry, actions, human steps, fork/join, MCP, tracing", "agents/retry types/act types/human types/flow mcp telemetry"},
	{"the scripted model", "agents/scripted"},
	{"agent types", "types/llm agents/agenttest types/brain types/checks types/legacy types/search"},
	{"agent types built on the LLM agent", "types/memories types/scout types/validate"},
	{"composition: building workflows, the loop", "orchestrator loopnode"},
	{"the façade", "cogloop schema"},
	{"above the façade: records, queue, the OTLP exporter", "app/records app/queue schema/schematest app/otlp"},
	{"reading records", "app/report"},
	{"the web UI", "app/serve"},
	{"programs", "cmd/... examples/..."},
}

// sdkImporters: each SDK has one importing package ("x/..." as above), so
// swapping or upgrading it touches one place. Test files may import them.
var sdkImporters = map[string]string{
	"github.com/tmc/langchaingo":             "types/llm",
	"github.com/dlclark/regexp2":             "cognition",
	"github.com/redis/go-redis":              "memory/redis",
	"github.com/nikolalohinski/gonja":        "prompt",
	"go.opentelemetry.io/otel":               "telemetry app/otlp",
	"github.com/hibiken/asynq":               "app/queue",
	"github.com/modelcontextprotocol/go-sdk": "mcp",
}

// neverImports: package → packages it must not depend on, even indirectly.
var neverImports = map[string][]string{
	// The loop's inner workflow is built through the Builder; an orchestrator is an Agent.
	"loopnode": {"orchestrator"},
}

const modulePath = "github.com/cogloop/cogloop"

type goPackage struct {
	path    string   // module relative; "cogloop" for the root
	dir     string   // absolute
	imports []string // project imports, module relative
	sdks    []string // imports outside the module and the standard library
}

// listPackages asks go list for the module's packages and their (non-test) imports.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .Imports \" \"}}", "./...").Output()
	require.NoError(t, err, "go list ./...")
	var pkgs []goPackage
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 3, "go list line %q", line)
		p := goPackage{path: relPath(f[0]), dir: f[1]}
		for _, im := range strings.Fields(f[2]) {
			switch {
			case im == modulePath || strings.HasPrefix(im, modulePath+"/"):
				p.imports = append(p.imports, relPath(im))
			case strings.Contains(strings.Split(im, "/")[0], "."):
				p.sdks = append(p.sdks, im)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func relPath(importPath string) string {
	if importPath == modulePath {
		return "cogloop"
	}
	return strings.TrimPrefix(importPath, modulePath+"/")
}

// matches reports whether pattern ("x", "x/...", "x?") names pkg.
func matches(pattern, pkg string) bool {
	pattern = strings.TrimSuffix(pattern, "?")
	if under, ok := strings.CutSuffix(pattern, "/..."); ok {
		return strings.HasPrefix(pkg, under+"/")
	}
	return pattern == pkg
}

// layerOf returns the index of pkg's layer, preferring an exact entry to an
// "x/..." one, or -1.
func layerOf(pkg string) int {
	found := -1
	for i, l := range layering {
		for _, p := range strings.Fields(l.pkgs) {
			if matches(p, pkg) {
				if !strings.HasSuffix(p, "/...") {
					return i
				}
				found = i
			}
		}
	}
	return found
}

// TestLayering: every package is in a layer of the declaration above and
// imports only packages of lower layers; each SDK has its one importer; the
// loop never depends on the orchestrator.
func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	require.Greater(t, len(pkgs), 40)
	known := map[string]bool{}
	for _, p := range pkgs {
		known[p.path] = true
		layer := layerOf(p.path)
		if layer < 0 {
			above := 0
			for _, im := range p.imports {
				above = max(above, layerOf(im)+1)
			}
			above = min(above, len(layering)-1)
			t.Errorf("package %s is in no layer: add %q to the line {%q, ...} of layering_test.go (the lowest layer above every package it imports: %s)",
				p.path, p.path, layering[above].name, strings.Join(p.imports, ", "))
			continue
		}
		for _, im := range p.imports {
			if l := layerOf(im); l >= layer {
				t.Errorf("%s (layer %d, %s) imports %s (layer %d, %s): imports point down to lower layers (layering_test.go); move the shared part down, or move %s to a layer above %s if that is where it belongs",
					p.path, layer, layering[layer].name, im, l, layering[max(l, 0)].name, p.path, im)
			}
		}
		for _, sdk := range p.sdks {
			for prefix, owner := range sdkImporters {
				if sdk != prefix && !strings.HasPrefix(sdk, prefix+"/") {
					continue
				}
				if !slices.ContainsFunc(strings.Fields(owner), func(o string) bool { return matches(o, p.path) }) {
					t.Errorf("%s imports %s; only %s may import %s (layering_test.go sdkImporters): go through it", p.path, sdk, owner, prefix)
				}
			}
		}
	}
	for _, l := range layering {
		for _, p := range strings.Fields(l.pkgs) {
			if !strings.HasSuffix(p, "/...") && !strings.HasSuffix(p, "?") && !known[p] {
				t.Errorf("layering_test.go names %s (layer %q), which is not a package: remove it", p, l.name)
			}
		}
	}
	byPath := map[string]goPackage{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	for pkg, banned := range neverImports {
		deps := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for _, im := range byPath[p].imports {
				if !deps[im] {
					deps[im] = true
					walk(im)
				}
			}
		}
		walk(pkg)
		for _, b := range banned {
			assert.False(t, deps[b], "%s depends on %s (directly or through another package); it must not", pkg, b)
		}
	}
}

// TestLayeringCatchesAnUpwardImport: the rule above fails an import that
// points up or sideways and passes one that points down.
func TestLayeringCatchesAnUpwardImport(t *testing.T) {
	require.Less(t, layerOf("agents"), layerOf("types/llm"))
	require.Less(t, layerOf("prompt"), layerOf("agents"))
	assert.Equal(t, layerOf("loopnode"), layerOf("orchestrator"), "same layer: neither may import the other")
	assert.Equal(t, layerOf("internal/newthing"), 1, "internal/... covers new internal packages")
	assert.Equal(t, layerOf("cognition/internal/x"), 1)
	assert.Equal(t, layerOf("internal/perf"), 0, "an exact entry wins over x/...")
	assert.Equal(t, layerOf("nosuch"), -1)
	assert.Less(t, layerOf("types/human"), layerOf("types/llm"), "the LLM agent asks people to approve tool calls")
}

// importsSentence is the first paragraph a package's "# Imports" doc section
// must have: its project imports, as go list reports them.
func importsSentence(imports []string) string {
	if len(imports) == 0 {
		return "It imports no project package."
	}
	s := slices.Clone(imports)
	sort.Strings(s)
	if len(s) == 1 {
		return "It imports " + s[0] + " only."
	}
	return "It imports " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1] + "."
}

// importsSection returns the first paragraph of the "# Imports" heading of
// the package's doc comment (whitespace collapsed) and the file holding it.
func importsSection(t *testing.T, dir string) (para, file string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments|parser.PackageClauseOnly)
		require.NoError(t, err)
		if af.Doc == nil {
			continue
		}
		file = f
		if p, ok := docSection(af.Doc, "Imports"); ok {
			return p, f
		}
	}
	return "", file
}

func relFile(t *testing.T, file string) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, file)
	require.NoError(t, err)
	return rel
}

func docSection(doc *ast.CommentGroup, heading string) (string, bool) {
	_, rest, ok := strings.Cut(doc.Text(), "# "+heading+"\n")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, "\n")
	para, _, _ := strings.Cut(rest, "\n\n")
	return strings.Join(strings.Fields(para), " "), true
}

// TestDocImportsSentences: every package's doc comment has an "# Imports"
// section whose first paragraph names exactly the project packages it
// imports, so the sentence a reader trusts is the one go list sees.
func TestDocImportsSentences(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.HasPrefix(p.path, "examples/") {
			continue // programs to copy: their import block is the whole story
		}
		want := importsSentence(p.imports)
		para, file := importsSection(t, p.dir)
		if file == "" {
			t.Errorf("package %s has no doc comment: add a doc.go saying what it owns, with\n// # Imports\n//\n// %s", p.path, want)
			continue
		}
		if para != want {
			t.Errorf("%s: the first paragraph of its \"# Imports\" doc section must be\n// %s\n(got %q); it names the project packages go list says %s imports",
				relFile(t, file), want, para, p.path)
		}
	}
}
