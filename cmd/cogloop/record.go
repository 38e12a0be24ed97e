package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
)

// Environment of run records.
const (
	envRecordDir = "COGLOOP_RECORD_DIR"
	// envRecordMax bounds the record directory in bytes (tests set it small).
	envRecordMax = "COGLOOP_RECORD_MAX_BYTES"
)

// recordDir is the record directory from --record-dir, else
// $COGLOOP_RECORD_DIR, else .cogloop/runs, with its size cap.
func recordDir(flagDir string) (records.Dir, error) {
	d := records.Dir{Path: flagDir, MaxBytes: records.DefaultMaxBytes}
	if d.Path == "" {
		d.Path = os.Getenv(envRecordDir)
	}
	if d.Path == "" {
		d.Path = records.DefaultDir
	}
	if v := os.Getenv(envRecordMax); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return d, fmt.Errorf("%s=%q: want a positive number of bytes", envRecordMax, v)
		}
		d.MaxBytes = n
	}
	return d, nil
}

// recording writes a run's record and, with --report, keeps its events for
// the report.
type recording struct {
	dir    records.Dir
	w      *records.Writer
	buf    *records.Buffer
	report string
}

// startRecording opens the run's record (unless --no-record) and the event
// buffer of --report; observers are what the run must send events to.
func startRecording(f runFlags, runID string, stderr io.Writer) (*recording, []event.Observer, error) {
	r := &recording{report: f.report}
	var obs []event.Observer
	if !f.noRecord {
		d, err := recordDir(f.recordDir)
		if err != nil {
			return nil, nil, err
		}
		w, replaced, err := d.Create(runID, f.resume != "", nil)
		switch {
		case err != nil && f.recordDir == "" && os.Getenv(envRecordDir) == "":
			// The default directory (.cogloop/runs) cannot be written, say in
			// a read-only working directory: the run goes on without a record.
			fmt.Fprintf(stderr, "warning: %v; the run goes on without a record (set --record-dir or %s to keep one, or --no-record to say so)\n", err, envRecordDir)
			w = nil
		case err != nil:
			return nil, nil, fmt.Errorf("%w (or run with --no-record)", err)
		}
		if replaced {
			fmt.Fprintf(stderr, "warning: run record %s of an earlier run %q is replaced\n", d.File(runID), runID)
		}
		if w != nil {
			r.dir, r.w = d, w
			obs = append(obs, w.Observe)
		}
	}
	if f.report != "" {
		r.buf = &records.Buffer{}
		obs = append(obs, r.buf.Observe)
	}
	return r, obs, nil
}

// finish closes the record, prunes the directory and writes the report. A
// record that could not be written is a warning; a report that could not be
// written is an error.
func (r *recording) finish(runID string, stderr io.Writer) error {
	if r.w != nil {
		if err := r.w.Close(); err != nil {
			fmt.Fprintf(stderr, "warning: %v; the run has no complete record\n", err)
		}
		if _, err := r.dir.Prune(runID); err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", err)
		}
	}
	if r.buf == nil {
		return nil
	}
	rec := &records.Record{ID: runID, Events: r.buf.Events()}
	if n := len(rec.Events); n > 0 {
		rec.Complete = rec.Events[n-1].Kind == event.RunEnd
	}
	return writeReport(r.report, rec.Summarize())
}

// writeReport writes the HTML report of s to path ('-': stdout is not
// offered; a report is a file).
func writeReport(path string, s records.Summary) error {
	f, err := records.CreatePrivate(path)
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := report.Write(f, s); err != nil {
		_ = f.Close() // the write error is the one to report
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}

func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("runs", stderr)
	var dirFlag string
	var asJSON, prune, waiting bool
	var limit int
	var sf storeFlags
	fs.StringVar(&dirFlag, "record-dir", "", "")
	fs.BoolVar(&prune, "prune", false, "")
	fs.BoolVar(&waiting, "waiting", false, "")
	fs.StringVar(&sf.redisURL, "redis", "", "")
	fs.StringVar(&sf.namespace, "namespace", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.IntVar(&limit, "limit", 20, "")
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return usageError(stderr, "runs", err)
	case len(pos) > 0:
		return usageError(stderr, "runs", fmt.Errorf("runs takes no arguments, got %q", pos[0]))
	case limit < 0:
		return usageError(stderr, "runs", fmt.Errorf("--limit must be 0 (all) or more, got %d", limit))
	}
	if waiting {
		sf.recordDir = dirFlag
		return listWaiting(ctx, sf, asJSON, stdout, stderr)
	}
	d, err := recordDir(dirFlag)
	if err != nil {
		return usageError(stderr, "runs", err)
	}
	if prune {
		sf.recordDir = dirFlag
		return pruneFinished(ctx, d, sf, stdout, stderr)
	}
	list, err := d.List(limit)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop runs: %v\n", err)
		return exitFailure
	}
	if asJSON {
		return printJSON(stdout, stderr, "cogloop runs", list)
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no runs recorded in %s\n", d.Path)
		return exitOK
	}
	writeRuns(stdout, list)
	return exitOK
}

// writeRuns is the table of `cogloop runs`, newest first.
func writeRuns(w io.Writer, list []records.Summary) {
	tw := newTable(w, "RUN", "WORKFLOW", "STARTED", "DURATION", "STATUS", "STOPPED", "BEST", "TOKENS", "COST")
	for _, s := range list {
		var stops, bests []string
		for _, l := range s.Loops {
			if l.Nested() {
				continue // the outer loop speaks for its nested loops
			}
			stop := l.StopReason
			if stop == "" {
				stop = "(not ended)"
			}
			stops = append(stops, stop)
			if l.BestIteration > 0 && anyScore(l.Result().Iterations) {
				bests = append(bests, fmt.Sprintf("%.2f", l.BestScore))
			} else {
				bests = append(bests, "–")
			}
		}
		started := "–"
		if !s.Started.IsZero() {
			started = s.Started.Local().Format("2006-01-02 15:04:05")
		}
		tw.row(s.RunID, s.Workflow, started, shortDuration(s.Duration), s.Status, firstFew(stops),
			firstFew(bests), humanize.Comma(int64(s.Usage.Total())), costText(s.Usage.Cost))
	}
	tw.flush()
}

// maxListed is how many loops a row of `cogloop runs` names.
const maxListed = 3

// firstFew joins the first maxListed of ss and counts the rest: "a,b,c +2".
func firstFew(ss []string) string {
	if len(ss) <= maxListed {
		return orDash(strings.Join(ss, ","))
	}
	return fmt.Sprintf("%s +%d", strings.Join(ss[:maxListed], ","), len(ss)-maxListed)
}

// recordRun is what show and report take: a recorded run.
const recordRun = "one run (an id, a unique prefix of one, 'latest', or a record file)"

func cmdShow(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("show", stderr)
	var dirFlag string
	var asJSON bool
	var sf storeFlags
	fs.StringVar(&dirFlag, "record-dir", "", "")
	fs.StringVar(&sf.redisURL, "redis", "", "")
	fs.StringVar(&sf.namespace, "namespace", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	name, err := parseOneArg(fs, args, recordRun)
	if err != nil {
		return usageError(stderr, "show", err)
	}
	s, code := readSummary(dirFlag, name, "show", stderr)
	if code != exitOK {
		return code
	}
	if asJSON {
		return printJSON(stdout, stderr, "cogloop show", s)
	}
	writeShow(stdout, s)
	sf.recordDir = dirFlag
	if line := checkpointLine(ctx, s.RunID, sf, stderr); line != "" {
		fmt.Fprintln(stdout, line)
	}
	return exitOK
}

func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", stderr)
	var dirFlag, out string
	fs.StringVar(&dirFlag, "record-dir", "", "")
	fs.StringVar(&out, "o", "", "")
	name, err := parseOneArg(fs, args, recordRun)
	switch {
	case err != nil:
		return usageError(stderr, "report", err)
	case out == "":
		return usageError(stderr, "report", errors.New("report needs -o FILE.html"))
	}
	s, code := readSummary(dirFlag, name, "report", stderr)
	if code != exitOK {
		return code
	}
	if err := writeReport(out, s); err != nil {
		fmt.Fprintf(stderr, "cogloop report: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s: report of run %s\n", out, s.RunID)
	return exitOK
}

// readSummary reads the record name resolves to; a run that is not found is
// a usage error.
func readSummary(dirFlag, name, cmd string, stderr io.Writer) (records.Summary, int) {
	d, err := recordDir(dirFlag)
	if err != nil {
		return records.Summary{}, usageError(stderr, cmd, err)
	}
	rec, err := d.Read(name)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop %s: %v\n", cmd, err)
		if errors.Is(err, records.ErrNotFound) {
			return records.Summary{}, exitUsage
		}
		return records.Summary{}, exitFailure
	}
	s := rec.Summarize()
	s.Forks, _ = d.Forks(s.RunID) // a directory that cannot be listed has none to show
	return s, exitOK
}

// writeShow prints a record: the run's facts, the run summary (the lines a
// run prints on stderr), and a table of passes for each loop.
func writeShow(w io.Writer, s records.Summary) {
	writeShowFacts(w, s)
	writeSummaryLines(w, recordLoops(s.Loops), s.Errors, s.Warnings)
	writeHumans(w, s)
	if len(s.Tools) > 0 {
		fmt.Fprintf(w, "\ntool calls outside loops\n")
		writeToolCalls(w, s.Tools)
	}
	for _, l := range s.Loops {
		writeShowLoop(w, l)
	}
}

// writeShowFacts prints the run's line (id, workflow, status, start,
// duration, spend) and what the record says about itself: incomplete,
// forked from or into other runs, skipped lines, the run's error.
func writeShowFacts(w io.Writer, s records.Summary) {
	fmt.Fprintf(w, "run %s · workflow %s · %s", s.RunID, s.Workflow, s.Status)
	if !s.Started.IsZero() {
		fmt.Fprintf(w, " · started %s", s.Started.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(w, " · %s", shortDuration(s.Duration))
	if t := s.Usage.Total(); t > 0 {
		fmt.Fprintf(w, " · %s tokens", humanize.Comma(int64(t)))
	}
	if s.Usage.Cost > 0 {
		fmt.Fprintf(w, " · $%.4f", s.Usage.Cost)
	}
	fmt.Fprintln(w)
	if !s.Complete {
		why := "the run did not end (killed, or still running)"
		if s.Problem != "" {
			why += "; " + s.Problem
		}
		fmt.Fprintf(w, "incomplete record: %s\n", why)
	}
	if f := s.ForkedFrom; f != nil {
		fmt.Fprintf(w, "forked from run %s at pass %s: the passes before it are %s's ('cogloop show %s')\n", f.Run, f.Pass, f.Run, f.Run)
	}
	for _, f := range s.Forks {
		fmt.Fprintf(w, "forked: run %s from pass %s ('cogloop show %s')\n", f.Run, f.Pass, f.Run)
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "note: %s\n", sk)
	}
	if s.Error != "" {
		fmt.Fprintf(w, "error: %s\n", s.Error)
	}
}

// writeShowLoop prints a loop's table of passes, the tool calls of each
// pass, and its check: before conditions.
func writeShowLoop(w io.Writer, l records.Loop) {
	fmt.Fprintf(w, "\n%s\n", l.Path)
	tw := newTable(w, "PASS", "SCORE", "STOP CONDITIONS", "PROMPT TOKENS", "TOKENS", "ERRORS")
	for _, p := range l.Passes {
		tw.row(passRow(p)...)
	}
	tw.flush()
	for _, p := range l.Passes {
		if len(p.Tools) > 0 {
			fmt.Fprintf(w, "tool calls of pass %d\n", p.Number)
			writeToolCalls(w, p.Tools)
		}
	}
	for _, c := range l.Checks {
		stop := ""
		if c.Stop {
			stop = " · the loop stopped here"
		}
		fmt.Fprintf(w, "checked before pass %d: %s%s\n", c.Before, condsText(c.Conditions), stop)
	}
}

// passRow is pass p's row in a loop's table.
func passRow(p records.Pass) []string {
	score := "–"
	switch {
	case !p.Completed:
		score = "cut short"
	case p.ScoreFound:
		score = fmt.Sprintf("%.2f", p.Score)
	}
	var errs []string
	for _, a := range p.FailedAgents {
		errs = append(errs, a+" failed")
	}
	if p.Error != "" {
		errs = append(errs, firstLine(p.Error))
	}
	return []string{strconv.Itoa(p.Number), score, condsText(p.Conditions),
		humanize.Comma(int64(p.Usage.PromptTokens)), humanize.Comma(int64(p.Usage.Total())), orDash(strings.Join(errs, "; "))}
}

// condsText lists conditions as condText does each, or "–" for none.
func condsText(cs []records.Condition) string {
	var conds []string
	for _, c := range cs {
		conds = append(conds, condText(c))
	}
	return orDash(strings.Join(conds, ", "))
}

// passTools counts the tool calls of each pass; nil when none were made.
func passTools(passes []records.Pass) []int {
	var out []int
	n := 0
	for _, p := range passes {
		out = append(out, len(p.Tools))
		n += len(p.Tools)
	}
	if n == 0 {
		return nil
	}
	return out
}

// maxToolText clips a tool call's arguments and result in cogloop show.
const maxToolText = 80

// writeToolCalls lists tool calls: round, calling agent, tool, arguments,
// duration and the result or error, clipped to a line.
func writeToolCalls(w io.Writer, calls []records.ToolCall) {
	tw := newTable(w, "  ROUND", "AGENT", "TOOL", "ARGS", "TIME", "RESULT")
	for _, c := range calls {
		res := fault.Truncate(c.Result, maxToolText)
		if c.Error != "" {
			res = "error: " + fault.Truncate(c.Error, maxToolText)
		}
		tw.row("  "+strconv.Itoa(c.Round), c.Agent, c.Tool, orDash(fault.Truncate(c.Args, maxToolText)), shortDuration(c.Duration), orDash(res))
	}
	tw.flush()
}

// condText is "kind: fired" or "kind: no".
func condText(c records.Condition) string {
	if c.Fired {
		return c.Kind + ": fired"
	}
	return c.Kind + ": no"
}

// table is a text table with aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() { t.tw.Flush() }

func shortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Second:
		return d.Round(time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func costText(c float64) string {
	if c == 0 {
		return "–"
	}
	return fmt.Sprintf("$%.4f", c)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

const helpRuns = `usage: cogloop runs [flags]

Lists the recorded runs, newest first: id, workflow, start, duration, status,
why each top-level loop stopped, its best score, tokens and cost. Every
'cogloop run' records its events in .cogloop/runs/<run id>.jsonl (see
'cogloop help run').

flags:
  --record-dir DIR  the records (default $COGLOOP_RECORD_DIR, else .cogloop/runs)
  --limit N         the newest N runs (default 20; 0: all)
  --json            print the runs' summaries as JSON
  --prune           delete now the checkpoints of the recorded runs that ended ok
                    (they expire by themselves after 'run --keep-finished', 24h), and
                    the expired checkpoint files
  --waiting         list the runs that wait for an answer (human steps) in the store:
                    agent, kind, how long, when the wait expires, the question
  --redis URL       the store of --prune and --waiting (default $REDIS_URL, else the
                    checkpoint files in <record dir>/checkpoints)
  --namespace N     key namespace (default "default")
`

const helpShow = `usage: cogloop show RUN [flags]

Prints a recorded run: its summary (as 'cogloop run' prints it) and, for each
loop, a table of its passes (score, stop-condition results, tokens, errors).
RUN is a run id, a unique prefix of one, 'latest', or a record file. A record
cut short (the run was killed) is shown as far as it goes and said to be
incomplete.

flags:
  --record-dir DIR  the records (default $COGLOOP_RECORD_DIR, else .cogloop/runs)
  --json            print the run's summary, loops, passes and agent calls as JSON
  --redis URL       report the run's checkpoint in this store (default $REDIS_URL, else
                    the checkpoint files): its size, whether the run finished
  --namespace N     key namespace (default "default")
`

const helpReport = `usage: cogloop report RUN -o FILE.html [flags]

Writes a recorded run as one self-contained HTML page (no network): the
summary, a score-per-pass chart for each loop, and per pass the stop
conditions, the lessons extracted, tokens, errors and every agent's prompt
and reply. RUN is as for 'cogloop show'. 'cogloop run --report F.html' writes
the same page at the end of a run.

flags:
  -o FILE.html      where to write the report (required)
  --record-dir DIR  the records (default $COGLOOP_RECORD_DIR, else .cogloop/runs)
`
