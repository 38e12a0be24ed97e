package act_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCommandRunsArgvWithoutShell(t *testing.T) {
	a := build(t, "type: command\ncommand: [echo, '{{ args.word }}']\n")
	word := "$(touch pwned) `id` ; * | > x"
	out, err := call(t, a, map[string]any{"word": word})
	require.NoError(t, err)
	require.Equal(t, word+"\n", out.Fields["stdout"], "the argument reaches the program as one literal argv element")
	require.Equal(t, word+"\n", out.Response)
	require.Equal(t, 0, out.Fields["exit_code"])
	require.Equal(t, "", out.Fields["stderr"])
	require.IsType(t, float64(0), out.Fields["duration"])
}

func TestCommandNonZeroExit(t *testing.T) {
	src := "type: command\ncommand: [sh, -c, 'echo out; echo err >&2; exit 3']\n"
	out, err := call(t, build(t, src), nil)
	require.NoError(t, err, "a non-zero exit is a result")
	require.Equal(t, 3, out.Fields["exit_code"])
	require.Equal(t, "out\n", out.Fields["stdout"])
	require.Equal(t, "err\n", out.Fields["stderr"])
	require.Equal(t, "out\n", out.Response)

	out, err = call(t, build(t, src+"fail_on_exit: true\n"), nil)
	require.ErrorContains(t, err, "exit code 3 (fail_on_exit is set): err")
	require.Equal(t, 3, out.Fields["exit_code"])
}

func TestCommandEnvironmentIsAnAllowList(t *testing.T) {
	t.Setenv("COGLOOP_ACT_SECRET", "s3cret")
	t.Setenv("COGLOOP_ACT_SHARED", "shared-value")
	out, err := call(t, build(t, "type: command\ncommand: [env]\n"), nil)
	require.NoError(t, err)
	require.Equal(t, "", out.Fields["stdout"], "nothing is inherited by default")

	out, err = call(t, build(t, "type: command\ncommand: [env]\nenv: [COGLOOP_ACT_SHARED, COGLOOP_ACT_UNSET]\n"), nil)
	require.NoError(t, err)
	require.Equal(t, "COGLOOP_ACT_SHARED=shared-value\n", out.Fields["stdout"])

	out, err = call(t, build(t, "type: command\ncommand: [env]\ninherit_env: true\n"), nil)
	require.NoError(t, err)
	require.Contains(t, out.Fields["stdout"], "COGLOOP_ACT_SECRET=s3cret")
}

func TestCommandDir(t *testing.T) {
	dir := t.TempDir()
	out, err := call(t, build(t, fmt.Sprintf("type: command\ncommand: [pwd]\ndir: %s\n", yamlQuote(dir))), nil)
	require.NoError(t, err)
	require.Equal(t, dir, strings.TrimSpace(out.Fields["stdout"].(string)))
}

func TestCommandHugeOutputIsCut(t *testing.T) {
	a := build(t, "type: command\ncommand: [sh, -c, 'yes | head -c 3000000; yes e | head -c 5000 >&2']\nmax_output: 1000\n")
	out, err := call(t, a, nil)
	require.NoError(t, err)
	stdout := out.Fields["stdout"].(string)
	require.Equal(t, strings.Repeat("y\n", 500)+"\n[output cut: 2999000 more bytes dropped; max_output is 1000]", stdout)
	require.True(t, strings.HasSuffix(out.Fields["stderr"].(string), "[output cut: 4000 more bytes dropped; max_output is 1000]"))
}

func TestCommandLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"missing", "type: command\n", "command is required"},
		{"empty", "type: command\ncommand: []\n", `wf.yaml:2:1: agent "x": command is empty`},
		{"string", "type: command\ncommand: go test ./...\n", "command must be a list"},
		{"bad item", "type: command\ncommand: [go, {a: b}]\n", "wf.yaml:2:15: agent \"x\": command items must be text"},
		{"bad template", "type: command\ncommand: [echo, '{{ args.x ']\n", "command[1] template"},
		{"env value", "type: command\ncommand: [env]\nenv: [A=b]\n", `"A=b" is not a variable name`},
		{"typo", "type: command\ncommand: [env]\ntimout: 3\n", `did you mean "timeout"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, loadErr(t, tc.src), tc.want)
		})
	}
}
