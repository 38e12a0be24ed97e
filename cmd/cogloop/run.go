package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/memory"
)

type runFlags struct {
	json, jsonInput   bool
	inputFile, script string
	trace             string
	runID, resume     string
	allowChange       bool
	checkpointTTL     time.Duration
	store             storeFlags
	presets           string
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f runFlags
	fs := newFlagSet("run", stderr)
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.jsonInput, "json-input", false, "")
	fs.StringVar(&f.inputFile, "input-file", "", "")
	fs.StringVar(&f.script, "script", "", "")
	fs.StringVar(&f.trace, "trace", "", "")
	fs.StringVar(&f.runID, "run-id", "", "")
	fs.StringVar(&f.resume, "resume", "", "")
	fs.BoolVar(&f.allowChange, "allow-config-change", false, "")
	fs.DurationVar(&f.checkpointTTL, "checkpoint-ttl", memory.DefaultCheckpointTTL, "")
	fs.StringVar(&f.store.redisURL, "redis", "", "")
	fs.StringVar(&f.store.namespace, "namespace", "", "")
	fs.StringVar(&f.presets, "presets", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, err)
	}
	if len(pos) == 0 {
		return usageError(stderr, errors.New("run needs a workflow file"))
	}
	if len(pos) > 2 {
		return usageError(stderr, fmt.Errorf("run takes a workflow file and one input, got %d arguments (quote the input)", len(pos)))
	}
	if f.resume != "" && f.runID != "" && f.resume != f.runID {
		return usageError(stderr, errors.New("--resume names the run; leave out --run-id"))
	}
	if f.checkpointTTL <= 0 {
		return usageError(stderr, fmt.Errorf("--checkpoint-ttl must be positive, got %s", f.checkpointTTL))
	}
	if f.resume != "" && f.store.url() == "" {
		return usageError(stderr, fmt.Errorf("--resume %w", errNeedsRedis))
	}
	if len(pos) == 2 && f.inputFile != "" {
		return usageError(stderr, errors.New("give the input as an argument or with --input-file, not both"))
	}
	input, err := readInput(pos[1:], f)
	if err != nil {
		return usageError(stderr, err)
	}

	wf, err := cogloop.Load(pos[0], loadOptions(f.presets)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)

	opts := []cogloop.RunOption{cogloop.WithCheckpointTTL(f.checkpointTTL)}
	store, err := f.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	if store != nil {
		defer store.Close()
		opts = append(opts, cogloop.WithMemory(store))
	}
	switch {
	case f.resume != "":
		opts = append(opts, cogloop.WithResume(f.resume, f.allowChange))
	case f.runID != "" || store != nil:
		id := f.runID
		if id == "" {
			id = cogloop.NewRunID()
		}
		opts = append(opts, cogloop.WithRunID(id), cogloop.WithCheckpoints())
		if !f.json || isTerminal(stderr) {
			fmt.Fprintf(stderr, "cogloop: run %s (resume with --resume %s)\n", id, id)
		}
	}
	if f.script != "" {
		data, err := os.ReadFile(f.script)
		if err != nil {
			return usageError(stderr, fmt.Errorf("read script: %w", err))
		}
		script, err := agents.ParseScript(data, f.script)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		opts = append(opts, cogloop.WithModels(script))
	}
	var observers []agents.Observer
	if f.trace != "" {
		tr, err := newTrace(f.trace)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop: %v\n", err)
			return exitFailure
		}
		defer tr.Close()
		observers = append(observers, tr.Observe)
	}
	if isTerminal(stderr) {
		p := newProgress(stderr)
		defer p.Done()
		observers = append(observers, p.Observe)
	}
	observers = append(observers, warningPrinter(stderr))
	opts = append(opts, cogloop.WithObserver(fanOut(observers)))

	res, runErr := wf.Run(ctx, input, opts...)
	if res == nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", runErr)
		return exitFailure
	}
	code := exitOK
	if runErr != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", runErr)
		code = exitFailure
	} else if msg, failed := lastFailure(res); failed {
		fmt.Fprintf(stderr, "cogloop: %s\n", msg)
		code = exitFailure
	}
	if f.json {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "cogloop: write output: %v\n", err)
			return exitFailure
		}
		return code
	}
	if code == exitOK {
		fmt.Fprintln(stdout, res.Text())
	}
	return code
}

func readInput(pos []string, f runFlags) (any, error) {
	var text string
	switch {
	case f.inputFile != "":
		data, err := os.ReadFile(f.inputFile)
		if err != nil {
			return nil, fmt.Errorf("read input: %w", err)
		}
		text = string(data)
	case len(pos) == 1:
		text = pos[0]
	}
	if !f.jsonInput {
		return text, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("--json-input: the input is not valid JSON: %v", err)
	}
	return agents.Plain(v), nil
}

// lastFailure reports a run whose final agent ended as an error record.
func lastFailure(res *cogloop.Result) (string, bool) {
	id, out, ok := res.Outputs.Last()
	if !ok {
		return "the workflow ran no agent", true
	}
	if out.Failed() {
		return fmt.Sprintf("final agent %q failed: %s", id, out.Err), true
	}
	return "", false
}

func writeJSON(w io.Writer, res *cogloop.Result) error {
	outputs := map[string]any{}
	res.Outputs.Each(func(id string, o agents.Output) bool {
		outputs[id] = o.Map()
		return true
	})
	doc := map[string]any{"run_id": res.RunID, "output": res.Response, "outputs": outputs}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func printWarnings(w io.Writer, ps []agents.Problem) {
	for _, p := range ps {
		fmt.Fprintf(w, "warning: %s\n", p.Error())
	}
}

func warningPrinter(w io.Writer) agents.Observer {
	return func(e agents.Event) {
		if e.Kind == agents.EventWarning {
			fmt.Fprintf(w, "warning: %s: %s\n", e.Node, e.Message)
		}
	}
}

func fanOut(obs []agents.Observer) agents.Observer {
	return func(e agents.Event) {
		for _, o := range obs {
			o(e)
		}
	}
}

func loadOptions(presets string) []cogloop.LoadOption {
	if presets == "" {
		return nil
	}
	return []cogloop.LoadOption{cogloop.WithPresetsDir(presets)}
}

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", stderr)
	var presets string
	fs.StringVar(&presets, "presets", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, err)
	}
	if len(pos) != 1 {
		return usageError(stderr, errors.New("validate takes one workflow file"))
	}
	wf, err := cogloop.Load(pos[0], loadOptions(presets)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	fmt.Fprintf(stdout, "%s: ok (workflow %q)\n", pos[0], wf.ID())
	return exitOK
}
