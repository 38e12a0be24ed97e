package act

import (
	"path/filepath"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Options are the act types' dependencies.
type Options struct {
	// LookupEnv reads the variables a command tool's env: names; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Register adds the http, command, read_file and write_file agent types to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	r.MustRegister("http", httpFactory)
	r.MustRegister("command", o.commandFactory)
	r.MustRegister("read_file", readFileFactory)
	r.MustRegister("write_file", writeFileFactory)
}

// resolveDir makes dir relative to the directory of the workflow file c was
// read from (the working directory when c has no file).
func resolveDir(c *load.Config, dir string) string {
	if dir == "" || filepath.IsAbs(dir) || c.File() == "" {
		return dir
	}
	return filepath.Join(filepath.Dir(c.File()), dir)
}

// arg returns the call argument name as text, "" when absent.
func arg(in agents.Input, name string) (string, bool) {
	args, _ := in.Vars["args"].(map[string]any)
	v, ok := args[name]
	if !ok || v == nil {
		return "", false
	}
	return agents.Text(v), true
}
