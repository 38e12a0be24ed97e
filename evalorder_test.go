package cogloop_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoReadBesideWriteInOneReturn: no `return x, f(&x)` (or `a, b = x, f(&x)`)
// in the module. The Go spec orders the calls of one statement but not the read
// of x against them, so which x is returned is up to the compiler (issue 28 B4:
// the scorer returned a score filled by take in the same statement).
func TestNoReadBesideWriteInOneReturn(t *testing.T) {
	n := 0
	for _, files := range sourceFiles(t) {
		for _, path := range files {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			n++
			ast.Inspect(f, func(node ast.Node) bool {
				var list []ast.Expr
				switch s := node.(type) {
				case *ast.ReturnStmt:
					list = s.Results
				case *ast.AssignStmt:
					list = s.Rhs
				}
				if name, ok := readBesideWrite(list); ok {
					assert.Fail(t, "evaluation order", "%s: %s is read beside a call that takes &%s in the same statement: call first into a variable, then use both",
						fset.Position(node.Pos()), name, name)
				}
				return true
			})
		}
	}
	assert.Greater(t, n, 100, "the walk found the module's files")
}

// readBesideWrite reports a variable that one expression of list reads plainly
// while a call in another takes its address.
func readBesideWrite(list []ast.Expr) (string, bool) {
	if len(list) < 2 {
		return "", false
	}
	for i, e := range list {
		addr := map[string]bool{}
		ast.Inspect(e, func(n ast.Node) bool {
			if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
				if id, ok := u.X.(*ast.Ident); ok {
					addr[id.Name] = true
				}
			}
			return true
		})
		if _, isCall := e.(*ast.CallExpr); !isCall || len(addr) == 0 {
			continue
		}
		for j, o := range list {
			if id, ok := o.(*ast.Ident); ok && j != i && addr[id.Name] {
				return id.Name, true
			}
		}
	}
	return "", false
}
