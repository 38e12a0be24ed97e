package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/scripted"
)

// Size caps, checked before any work is done.
const (
	// maxInputBytes caps the run's input (argument, --input-file or stdin).
	maxInputBytes = 1 << 20
	// maxScriptBytes caps a --script file.
	maxScriptBytes = 4 << 20
)

// stdin is where INPUT '-' is read from; tests replace it.
var stdin io.Reader = os.Stdin

// stdinIsTerminal reports whether stdin is a terminal (then a missing INPUT is
// an empty input, not a read of stdin).
func stdinIsTerminal() bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// readCapped reads r to the end, refusing more than limit bytes with an error
// naming what was read and the cap.
func readCapped(r io.Reader, name string, limit int64, fix string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %s, the cap; %s", name, sizeText(limit), fix)
	}
	return data, nil
}

func readFileCapped(path, what string, limit int64, fix string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer func() { _ = f.Close() }() // read-only
	return readCapped(f, what+" "+path, limit, fix)
}

func sizeText(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// readInput returns the run's input: INPUT, --input-file, or stdin (INPUT '-',
// or no INPUT while stdin is not a terminal); --json-input parses it as JSON.
func readInput(pos []string, f runFlags) (any, error) {
	const fix = "pass a smaller input"
	var text string
	switch {
	case f.inputFile != "":
		data, err := readFileCapped(f.inputFile, "--input-file", maxInputBytes, fix)
		if err != nil {
			return nil, err
		}
		text = string(data)
	case len(pos) == 1 && pos[0] != "-":
		if len(pos[0]) > maxInputBytes {
			return nil, fmt.Errorf("the input argument is larger than %s, the cap; %s", sizeText(maxInputBytes), fix)
		}
		text = pos[0]
	case len(pos) == 1 || !stdinIsTerminal():
		data, err := readCapped(stdin, "the input on stdin", maxInputBytes, fix)
		if err != nil {
			return nil, err
		}
		text = string(data)
	}
	if !f.jsonInput {
		return text, nil
	}
	v, err := decodeInput(text)
	if err != nil {
		return nil, fmt.Errorf("--json-input: the input is not valid JSON: %w", err)
	}
	return v, nil
}

// decodeInput reads a run input given as JSON (--json-input, a --dataset
// line): its first JSON value, numbers as the plain ints and floats a run
// makes (agents.Plain).
func decodeInput(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return agents.Plain(v), nil
}

// errBadScript marks a script the workflow cannot use (exit 2, printed as is).
var errBadScript = errors.New("bad script")

// readScript reads and parses a --script file and checks that every agent id
// it answers for is defined by the workflow.
// extra are agent ids the script may answer besides the workflow's (an
// llm-rubric judge named by its model).
func readScript(path string, wf *cogloop.Workflow, extra ...string) (*scripted.Script, error) {
	data, err := readFileCapped(path, "--script", maxScriptBytes, "split the replies or shorten them")
	if err != nil {
		return nil, err
	}
	script, err := scripted.Parse(data, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadScript, err)
	}
	ids := wf.AgentIDs()
	defined := make(map[string]bool, len(ids))
	for _, id := range append(ids, extra...) {
		defined[id] = true
	}
	var probs load.Problems
	for _, id := range script.Agents() {
		if defined[id] {
			continue
		}
		msg := fmt.Sprintf("script: agent %q is not defined by workflow %q", id, wf.ID())
		if near := load.Closest(id, ids); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		} else {
			msg += fmt.Sprintf(" (its agents: %s)", strings.Join(ids, ", "))
		}
		probs.Errorf(keyPos(data, path, id), "%s", msg)
	}
	servers := wf.MCPServers()
	for _, e := range extra {
		if name, ok := strings.CutPrefix(e, scripted.ServerPrefix); ok {
			servers = append(servers, name)
		}
	}
	for _, name := range script.Servers() {
		if slices.Contains(servers, name) {
			continue
		}
		msg := fmt.Sprintf("script: %s%s stands in for an mcp server that workflow %q does not declare", scripted.ServerPrefix, name, wf.ID())
		if near := load.Closest(name, servers); near != "" {
			msg += fmt.Sprintf("; did you mean %s%s?", scripted.ServerPrefix, near)
		} else {
			msg += fmt.Sprintf(" (its mcp_servers: %s)", strings.Join(servers, ", "))
		}
		probs.Errorf(keyPos(data, path, scripted.ServerPrefix+name), "%s", msg)
	}
	if err := probs.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadScript, err)
	}
	return script, nil
}

// keyPos is the position of top-level key in a YAML mapping document.
func keyPos(data []byte, file, key string) load.Pos {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return load.Pos{File: file}
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == key {
			return load.Pos{File: file, Line: k.Line, Col: k.Column}
		}
	}
	return load.Pos{File: file}
}
