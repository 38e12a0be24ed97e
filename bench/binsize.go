package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// program is a Go program the binsize scenario builds.
type program struct {
	name  string // the row's name
	dir   string // "root": the cogloop module; "bench": this module
	pkg   string // the package to build, relative to dir
	tags  string // build tags
	limit float64
}

// scenarioBinSize builds programs with the default flags and reports their
// size and the modules they link (issue 27 item 7): the two-Go-agent loop
// of examples/go/loop built with -tags cogloop_core (the target) and without
// it, a program on the loop node alone without the façade (what the
// packages under the root cost), and the CLI. Sizes are
// deterministic for one toolchain and source tree, so one sample each.
func scenarioBinSize(rep *report, _ config) error {
	const g = "binary size"
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.Contains(string(data), "module github.com/cogloop/cogloop\n") {
		return errors.New("run the suite from bench/ (the repository root is its parent)")
	}
	here, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cogloop-binsize-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	progs := []program{
		{name: "two Go agents in a loop, cogloop.New (examples/go/loop), -tags cogloop_core", dir: root, pkg: "./examples/go/loop", tags: "cogloop_core", limit: 15},
		{name: "the same program, default build (every agent type linked)", dir: root, pkg: "./examples/go/loop"},
		{name: "the loop node alone, no façade (bench/bareloop)", dir: here, pkg: "./bareloop"},
		{name: "the CLI (cmd/cogloop)", dir: root, pkg: "./cmd/cogloop"},
	}
	for i, p := range progs {
		size := rep.add(&row{group: g, name: p.name, unit: "MB", digits: 2})
		if p.limit > 0 {
			size.target, size.ok = fmt.Sprintf("≤ %g", p.limit), atMost(p.limit)
		}
		mods := rep.add(&row{group: g, name: "  modules it links besides cogloop (go version -m)", unit: "", digits: 0})
		stripped := rep.add(&row{group: g, name: "  stripped (-ldflags='-s -w')", unit: "MB", digits: 2})
		bin := filepath.Join(dir, fmt.Sprintf("prog%d", i))
		for _, flags := range [][]string{nil, {"-ldflags=-s -w"}} {
			args := append([]string{"build", "-o", bin}, flags...)
			if p.tags != "" {
				args = append(args, "-tags", p.tags)
			}
			args = append(args, p.pkg)
			cmd := exec.Command("go", args...)
			cmd.Dir = p.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go build %s: %w: %s", p.pkg, err, out)
			}
			st, err := os.Stat(bin)
			if err != nil {
				return err
			}
			mb := float64(st.Size()) / 1e6
			if flags != nil {
				stripped.samples = append(stripped.samples, mb)
				continue
			}
			size.samples = append(size.samples, mb)
			n, err := linkedModules(bin)
			if err != nil {
				return err
			}
			mods.samples = append(mods.samples, float64(n))
		}
	}
	rep.note("**binary size**: `go build` with the default flags (DWARF and symbols kept) on this machine's toolchain, " +
		"1 MB = 10⁶ bytes; modules are the `dep` lines of `go version -m` (every module a linked package comes from), cogloop itself not counted. " +
		"-tags cogloop_core leaves out the agent types that call models, tools and the web, and MCP (README \"Binary size\"). " +
		"The loop node alone runs loopnode.NewLoop's node with agents.Input by hand: what the packages under the façade cost.")
	return nil
}

// linkedModules counts the dependency modules go version -m lists for bin,
// cogloop itself left out (it is a dependency of bench/bareloop, the main
// module of the others).
func linkedModules(bin string) (int, error) {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return 0, fmt.Errorf("go version -m: %w", err)
	}
	n := 0
	for line := range strings.SplitSeq(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "dep" && f[1] != "github.com/cogloop/cogloop" {
			n++
		}
	}
	return n, nil
}
