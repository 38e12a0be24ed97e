package act

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Defaults of the command type.
const (
	DefaultCommandTimeout = 60 * time.Second
	DefaultMaxOutput      = 1 << 20
	// killGrace is how long Wait waits for the output pipes after the process
	// group is killed (a grandchild that left the group may hold them).
	killGrace = 2 * time.Second
)

// Command is the command agent type: it runs a program with arguments, never
// through a shell. Its output's response is stdout; its fields are exit_code,
// stdout, stderr and duration (seconds); a model calling it as a tool reads
// them all. A non-zero exit is a result, unless
// FailOnExit.
type Command struct {
	ID string
	// Argv are the program and its arguments, each a template.
	Argv []*prompt.Template
	// Dir is the working directory; "" means the process's own.
	Dir string
	// Env names the variables passed on from cogloop's environment; no other
	// variable is set unless InheritEnv.
	Env        []string
	InheritEnv bool
	// LookupEnv reads the variables Env names; nil means os.LookupEnv.
	// (InheritEnv passes the process's whole environment regardless.)
	LookupEnv func(string) (string, bool)
	// Timeout bounds the run; at the timeout the whole process group is killed.
	Timeout time.Duration
	// MaxOutput caps stdout and stderr each; the rest is dropped with a note.
	MaxOutput  int
	FailOnExit bool
}

var _ agents.Agent = (*Command)(nil)

func (o Options) commandFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Command{ID: c.String("id", ""), LookupEnv: o.LookupEnv}
	n := c.Node("command")
	switch {
	case c.Recording():
	case n == nil:
		c.Errorf("", "command is required: the program and its arguments as a list ([go, test, ./...]); no shell runs it")
	case n.Kind != yaml.SequenceNode:
		c.Errorf("command", "command must be a list (the program and its arguments, [go, test, ./...]), not %s; no shell splits a string", load.KindName(n))
	case len(n.Content) == 0:
		c.Errorf("command", "command is empty: give the program and its arguments ([go, test, ./...])")
	default:
		for i, it := range n.Content {
			it = load.Resolve(it)
			if it.Kind != yaml.ScalarNode {
				c.Problems().Errorf(c.PosOf(it), "%s: command items must be text (templates), not %s", c.What(), load.KindName(it))
				continue
			}
			t, err := prompt.Parse(fmt.Sprintf("%s command[%d]", c.What(), i), it.Value, prompt.Options{})
			if err != nil {
				c.Problems().Errorf(c.PosOf(it), "%s: command[%d] template: %v", c.What(), i, err)
				continue
			}
			a.Argv = append(a.Argv, t)
		}
	}
	a.Dir = resolveDir(c, c.String("dir", ""))
	a.Env = c.Strings("env")
	for _, e := range a.Env {
		if e == "" || strings.ContainsAny(e, "= \t") {
			c.Errorf("env", "env names variables to pass on from cogloop's environment (PATH, HOME); %q is not a variable name", e)
		}
	}
	a.InheritEnv = c.Bool("inherit_env", false)
	if a.InheritEnv && o.LookupEnv != nil {
		c.Errorf("inherit_env", "inherit_env passes on the whole process environment, but this workflow was loaded with its own environment (cogloop.WithEnv), which cannot be listed: name the variables the command needs under env: instead")
	}
	a.Timeout = c.Duration("timeout", DefaultCommandTimeout)
	if a.Timeout <= 0 {
		a.Timeout = DefaultCommandTimeout
	}
	a.MaxOutput = c.Int("max_output", DefaultMaxOutput, 1, 1<<30)
	a.FailOnExit = c.Bool("fail_on_exit", false)
	return a, nil
}

// Run renders the argv and runs the program.
func (a *Command) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if len(a.Argv) == 0 {
		return agents.Output{}, errors.New("command is empty")
	}
	argv := make([]string, len(a.Argv))
	for i, t := range a.Argv {
		s, err := in.Render(t)
		if err != nil {
			return agents.Output{}, fmt.Errorf("render command[%d]: %w", i, err)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return agents.Output{}, fmt.Errorf("command[%d] holds a NUL byte", i)
		}
		argv[i] = s
	}
	if argv[0] == "" {
		return agents.Output{}, errors.New("command[0], the program, renders empty")
	}
	shown := in.Run.Scrub(strings.Join(argv, " "))
	ctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = a.Dir
	cmd.Env = a.environ()
	stdout, stderr := &capped{max: a.MaxOutput}, &capped{max: a.MaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	cmd.WaitDelay = killGrace
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	out := agents.Output{Prompt: shown}
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	so, se := in.Run.Scrub(stdout.String()), in.Run.Scrub(stderr.String())
	out.Response = so
	out.Fields = map[string]any{"exit_code": code, "stdout": so, "stderr": se,
		"duration": float64(took.Milliseconds()) / 1000}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return out, fmt.Errorf("%s: did not finish within the timeout of %s: its process group was killed: %w", clip(shown, 200), a.Timeout, ctxErr)
		}
		return out, fmt.Errorf("%s: %w", clip(shown, 200), ctxErr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if a.FailOnExit {
			return out, fmt.Errorf("%s: exit code %d (fail_on_exit is set): %s", clip(shown, 200), code, clip(strings.TrimSpace(se), 300))
		}
	case err != nil:
		return out, fmt.Errorf("run %s: %w", clip(shown, 200), err)
	}
	return out, nil
}

// environ is the child's environment: the named variables cogloop has, or
// all of them with InheritEnv.
func (a *Command) environ() []string {
	if a.InheritEnv {
		return os.Environ()
	}
	lookup := a.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	env := []string{}
	for _, name := range a.Env {
		if v, ok := lookup(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) <= room {
			c.buf.Write(p)
			return len(p), nil
		}
		c.buf.Write(p[:room])
		c.dropped += int64(len(p) - room)
		return len(p), nil
	}
	c.dropped += int64(len(p))
	return len(p), nil
}

// String is what was kept, with a note when some was dropped.
func (c *capped) String() string {
	s := strings.ToValidUTF8(c.buf.String(), "\uFFFD")
	if c.dropped > 0 {
		s += fmt.Sprintf("\n[output cut: %d more bytes dropped; max_output is %d]", c.dropped, c.max)
	}
	return s
}
