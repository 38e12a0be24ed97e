package prompt

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rewriter (rewrite.go) and the name collector (names.go) walk gonja's
// parse tree through reflect, including unexported fields, read two
// registries' unexported maps (check.go) and fill the lexer's unexported
// collection fields (lex.go). That is only safe for the gonja
// version pinned in go.mod, whose node types and field layouts are recorded in
// testdata/gonja_layout.txt. These tests fail loudly when either changes:
// review rewrite.go, names.go and check.go against the new layout, then
// regenerate the record with
//
//	go test ./prompt -run TestGonja -update-gonja-layout

const gonjaModule, gonjaPinned = "github.com/nikolalohinski/gonja/v2", "v2.9.1"

var updateGonjaLayout = flag.Bool("update-gonja-layout", false, "rewrite testdata/gonja_layout.txt")

// gonjaTypes are every struct type of gonja's nodes and control_structures
// packages (loopCallable, unexported, is a runtime value, never in a tree).
var gonjaTypes = []any{
	nodes.Template{}, nodes.Trim{}, nodes.Data{}, nodes.Comment{}, nodes.Output{}, nodes.FilteredExpression{},
	nodes.FilterCall{}, nodes.TestExpression{}, nodes.TestCall{}, nodes.String{}, nodes.Integer{}, nodes.Float{},
	nodes.Bool{}, nodes.Name{}, nodes.None{}, nodes.List{}, nodes.Tuple{}, nodes.Dict{}, nodes.Pair{},
	nodes.Variable{}, nodes.VariablePart{}, nodes.Call{}, nodes.GetItem{}, nodes.GetSlice{}, nodes.GetAttribute{},
	nodes.Negation{}, nodes.UnaryExpression{}, nodes.BinaryExpression{}, nodes.BinOperator{},
	nodes.ControlStructureBlock{}, nodes.Wrapper{}, nodes.Macro{}, nodes.Error{},
	controlStructures.AutoescapeControlStructure{}, controlStructures.BlockControlStructure{},
	controlStructures.BlockInfos{}, controlStructures.CallControlStructure{}, controlStructures.DoControlStructure{},
	controlStructures.ExtendsControlStructure{}, controlStructures.FilterControlStructure{},
	controlStructures.ForControlStructure{}, controlStructures.LoopInfos{}, controlStructures.IfControlStructure{},
	controlStructures.ImportControlStructure{}, controlStructures.FromImportControlStructure{},
	controlStructures.IncludeControlStructure{}, controlStructures.LoopBreakError{},
	controlStructures.LoopContinueError{}, controlStructures.BreakControlStructure{},
	controlStructures.ContinueControlStructure{}, controlStructures.MacroControlStructure{},
	controlStructures.RawControlStructure{}, controlStructures.SetControlStructure{},
	controlStructures.TransControlStructure{}, controlStructures.WithControlStructure{},
}

// TestGonjaIsThePinnedVersion: the build selects the gonja version whose
// layout is recorded.
func TestGonjaIsThePinnedVersion(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}{{with .Replace}} => {{.Path}} {{.Version}}{{end}}", gonjaModule).Output()
	require.NoError(t, err, "go list -m %s", gonjaModule)
	require.Equal(t, gonjaPinned, strings.TrimSpace(string(out)),
		"gonja was upgraded: prompt/ reaches its unexported fields; review rewrite.go, names.go and check.go, "+
			"regenerate testdata/gonja_layout.txt (-update-gonja-layout) and change gonjaPinned")
}

// TestGonjaLayout: every field of every gonja node type, exported or not, is
// as recorded.
func TestGonjaLayout(t *testing.T) {
	var b strings.Builder
	for _, v := range gonjaTypes {
		typ := reflect.TypeOf(v)
		b.WriteString(typ.String())
		b.WriteString("\n")
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			b.WriteString("\t" + f.Name + " " + f.Type.String() + "\n")
		}
	}
	// the registries check.go reads
	env := sharedEnv()
	for _, r := range []struct {
		v     any
		field string
	}{{env.globals, "data"}, {env.filters, "filters"}, {env.tests, "tests"}} {
		f, ok := reflect.TypeOf(r.v).Elem().FieldByName(r.field)
		require.True(t, ok, "%T.%s", r.v, r.field)
		b.WriteString(reflect.TypeOf(r.v).String() + "." + r.field + " " + f.Type.String() + "\n")
	}
	// the lexer whose unexported fields lex.go fills
	lexer := reflect.TypeFor[tokens.Lexer]()
	b.WriteString(lexer.String() + "\n")
	for i := 0; i < lexer.NumField(); i++ {
		f := lexer.Field(i)
		b.WriteString("\t" + f.Name + " " + f.Type.String() + "\n")
	}
	path := filepath.Join("testdata", "gonja_layout.txt")
	if *updateGonjaLayout {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String(),
		"gonja's node layout changed: review rewrite.go, names.go and check.go for each changed type, then -update-gonja-layout")
}

// TestGonjaHasNoUnknownNodeTypes: the struct types declared in gonja's
// source are exactly gonjaTypes, so a node type added upstream fails here
// instead of being walked blindly.
func TestGonjaHasNoUnknownNodeTypes(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", gonjaModule).Output()
	require.NoError(t, err, "go list -m %s", gonjaModule)
	dir := strings.TrimSpace(string(out))
	var declared []string
	for _, sub := range []string{"nodes", filepath.Join("builtins", "control_structures")} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, sub, e.Name()), nil, 0)
			require.NoError(t, err)
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if _, ok := ts.Type.(*ast.StructType); ok && ts.Name.IsExported() {
						declared = append(declared, f.Name.Name+"."+ts.Name.Name)
					}
				}
			}
		}
	}
	var known []string
	for _, v := range gonjaTypes {
		typ := reflect.TypeOf(v)
		known = append(known, typ.String())
	}
	sort.Strings(declared)
	sort.Strings(known)
	assert.Equal(t, known, declared, "gonja declares node types the rewriter does not know (or dropped some): review rewrite.go and names.go")
}
