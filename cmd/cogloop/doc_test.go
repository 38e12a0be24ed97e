package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command's doc comment (main.go) names every command of the usage text.
func TestDocListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	doc, _, ok := strings.Cut(string(src), "\npackage main")
	require.True(t, ok)
	cmds := usageCommands(t)
	for _, cmd := range cmds {
		assert.Regexp(t, `[ |]`+cmd+`( |$)`, doc, "main.go's doc comment lists %q", cmd)
	}
	assert.Greater(t, len(cmds), 10, "the usage text lists the commands")
}

// Every flag a command defines is in its help text, as --name (or -n).
func TestHelpListsEveryFlag(t *testing.T) {
	defined := definedFlags(t)
	require.Greater(t, len(defined), 10, "the commands' flag sets are found")
	for cmd, flags := range defined {
		help, ok := helps[cmd]
		require.True(t, ok, "flag set %q has a help text", cmd)
		for _, f := range flags {
			assert.Regexp(t, `(^|[\s(\[/,])--?`+regexp.QuoteMeta(f)+`([\s=,)\]]|$)`, help, "'cogloop help %s' lists its flag %q", cmd, f)
		}
	}
}

// The README's CLI section names every command of the usage text.
func TestReadmeListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(src), "\n## The CLI\n")
	require.True(t, ok, "README.md has a section 'The CLI'")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, cmd := range usageCommands(t) {
		listed := regexp.MustCompile(`(?m)^cogloop ` + regexp.QuoteMeta(cmd) + `( |$)`).MatchString(section)
		assert.True(t, listed, "README's CLI section lists %q", cmd)
	}
}

// usageCommands are the commands the usage text lists.
func usageCommands(t *testing.T) []string {
	t.Helper()
	_, list, ok := strings.Cut(usage, "commands:\n")
	require.True(t, ok)
	list, _, _ = strings.Cut(list, "\n\n")
	var cmds []string
	for _, line := range strings.Split(list, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			cmds = append(cmds, fields[0])
		}
	}
	return cmds
}

// definedFlags reads the package's source: for each function that calls
// newFlagSet("cmd", …), the names of the flags it defines on fs.
func definedFlags(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	out := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			cmd, flags := "", []string(nil)
			if fn.Name.Name == "define" && fn.Recv != nil {
				// xFlags.define: command x's flags (runFlags: run's, which
				// fork takes too; its help sends the reader to run's)
				cmd = strings.TrimSuffix(receiverType(fn), "Flags")
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fun := call.Fun.(type) {
				case *ast.Ident:
					if fun.Name == "newFlagSet" {
						cmd = stringArg(call)
					}
				case *ast.SelectorExpr:
					if x, ok := fun.X.(*ast.Ident); ok && x.Name == "fs" && fun.Sel.Name != "Parse" {
						if s := stringArg(call); s != "" {
							flags = append(flags, s)
						}
					}
				}
				return true
			})
			if cmd != "" {
				out[cmd] = append(out[cmd], flags...)
			}
		}
	}
	return out
}

// receiverType is the name of method fn's receiver type.
func receiverType(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// stringArg is the first string literal among call's arguments.
func stringArg(call *ast.CallExpr) string {
	for _, a := range call.Args {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				return s
			}
		}
	}
	return ""
}
