package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
)

// runPagesDir is where --report F.html puts each run's page: F_runs/.
func runPagesDir(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "_runs"
}

// writeEvalReport writes the eval's page to path and each run's report page
// (from the events the run kept) into runPagesDir(path).
func writeEvalReport(path, workflow, dataset string, s evalSummary, results []evalResult) error {
	dir := runPagesDir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write --report: %w", err)
	}
	e := report.Eval{Workflow: workflow, Dataset: dataset, Passed: s.passed()}
	var buf strings.Builder
	writeEvalTable(&buf, s)
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		k, v, _ := strings.Cut(line, "  ")
		e.Facts = append(e.Facts, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	for _, r := range results {
		er := report.EvalRun{Line: r.Line, Repeat: r.Repeat, Name: r.Name, Input: inputText(r.Input), Answer: r.Answer,
			Status: r.Status, Pass: r.Pass, Failures: r.Failures, Passes: r.Passes, Tokens: r.Tokens, Cost: r.Cost, Duration: r.duration}
		if r.FinalScore != nil {
			er.Score = fmt.Sprintf("%.3f", *r.FinalScore)
		}
		if len(r.events) > 0 {
			name := fmt.Sprintf("line-%d-%d.html", r.Line, r.Repeat)
			rec := &records.Record{ID: r.RunID, Events: r.events, Complete: r.events[len(r.events)-1].Kind == event.RunEnd}
			if err := writeReport(filepath.Join(dir, name), rec.Summarize()); err != nil {
				return err
			}
			er.Link = filepath.Base(dir) + "/" + name
		}
		e.Runs = append(e.Runs, er)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write --report: %w", err)
	}
	if err := report.WriteEval(f, e); err != nil {
		_ = f.Close() // the render error is the one to report
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write --report %s: %w", path, err)
	}
	return nil
}

// inputText is a dataset input as the user wrote it: text as is, other
// values as JSON.
func inputText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
