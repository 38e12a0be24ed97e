package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
)

// exitWaiting is the exit code of a run that waits for an answer or paused.
const exitWaiting = 3

// runInfoPath holds, in a run's checkpoint, what `cogloop answer` needs to
// continue the run: the workflow file, the input, the script.
const runInfoPath = "run:cli"

type runInfo struct {
	Workflow string `json:"workflow"`
	Input    any    `json:"input,omitempty"`
	Script   string `json:"script,omitempty"`
	Presets  string `json:"presets,omitempty"`
	Strict   bool   `json:"strict,omitempty"`
	// ScriptCalls are the --script replies each agent used before the run
	// stopped to wait or pause: the continued run goes on after them.
	ScriptCalls map[string]int `json:"script_calls,omitempty"`
}

// keepScriptCalls records, in run runID's note of how it started, how many
// scripted replies each agent used, so `cogloop answer` and --resume go on
// with the next ones instead of starting the lists over.
func keepScriptCalls(ctx context.Context, store memory.Store, runID string, calls map[string]int) error {
	st, ok := store.(memory.States)
	if !ok || len(calls) == 0 {
		return nil
	}
	old, ok, err := st.LoadState(ctx, runID, runInfoPath)
	if err != nil || !ok {
		return err
	}
	var info runInfo
	if err := json.Unmarshal(old, &info); err != nil {
		return err
	}
	info.ScriptCalls = calls
	raw, err := info.encode()
	if err != nil {
		return err
	}
	_, err = st.SwapState(ctx, runID, runInfoPath, old, raw)
	return err
}

// saveRunInfo keeps what continuing run runID needs in its checkpoint.
func saveRunInfo(ctx context.Context, store memory.Store, runID, digest string, info runInfo) error {
	raw, err := info.encode()
	if err != nil {
		return err
	}
	return store.SaveCheckpoint(ctx, runID, memory.Checkpoint{Digest: digest, State: map[string][]byte{runInfoPath: raw}})
}

// forkRunInfo keeps what continuing fork runID needs in its checkpoint once
// the fork made it (a checkpoint saved before would be a run that exists
// already): at its run.start event, as one state of the checkpoint.
func forkRunInfo(ctx context.Context, store memory.Store, runID string, info runInfo, stderr io.Writer) event.Observer {
	var once sync.Once
	return func(ev event.Event) {
		if ev.Kind != event.RunStart {
			return
		}
		once.Do(func() {
			err := errors.New("its checkpoint store keeps no single states")
			if st, ok := store.(memory.States); ok {
				var raw []byte
				if raw, err = info.encode(); err == nil {
					_, err = st.SwapState(ctx, runID, runInfoPath, nil, raw)
				}
			}
			if err != nil {
				fmt.Fprintf(stderr, "warning: run %s: keep how it started, for cogloop answer: %v\n", runID, err)
			}
		})
	}
}

// encode is info as JSON, its files as absolute paths.
func (info runInfo) encode() ([]byte, error) {
	for _, p := range []*string{&info.Workflow, &info.Script, &info.Presets} {
		if *p != "" {
			if abs, err := filepath.Abs(*p); err == nil {
				*p = abs
			}
		}
	}
	return json.Marshal(info)
}

func loadRunInfo(ctx context.Context, store memory.Store, runID string) (runInfo, bool, error) {
	var info runInfo
	cp, ok, err := store.LoadCheckpoint(ctx, runID)
	if err != nil || !ok {
		return info, false, err
	}
	raw, ok := cp.State[runInfoPath]
	if !ok {
		return info, false, nil
	}
	err = json.Unmarshal(raw, &info)
	return info, true, err
}

// writeStopped says, on stderr, what a run that waits or paused needs: the
// question, the run id and the command that continues it.
func writeStopped(w io.Writer, res *cogloop.Result, f runFlags, workflow string) {
	store := ""
	if u := f.store.url(); u != "" && f.store.redisURL != "" {
		store = " --redis " + u
	}
	if f.store.namespace != "" {
		store += " --namespace " + f.store.namespace
	}
	if q := res.Waiting; q != nil {
		fmt.Fprintf(w, "waiting for: %s\n", questionLine(*q))
		fmt.Fprintf(w, "cogloop: run %s waits for an answer; answer (and continue) with:\n  cogloop answer %s %s [--comment C]%s\n",
			res.RunID, res.RunID, q.FlagFor(), store)
		return
	}
	fmt.Fprintf(w, "cogloop: run %s paused; continue it with:\n  cogloop run %s --resume %s%s\n", res.RunID, workflow, res.RunID, store)
}

// questionLine is a question on one line: agent, path, kind, text.
func questionLine(q human.Question) string {
	kind := q.Kind
	if len(q.Options) > 0 {
		kind += " " + strings.Join(q.Options, "|")
	}
	return fmt.Sprintf("%s (%s, %s): %s", q.Agent, q.Path, kind, firstLine(q.Text))
}

// terminalAsker asks each question on w and reads the answer from r, again
// until it is one the question takes.
func terminalAsker(r io.Reader, w io.Writer) human.Func {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), 64<<10)
	type line struct {
		s  string
		ok bool
	}
	next := func(ctx context.Context) (string, error) {
		ch := make(chan line, 1)
		go func() {
			ok := lines.Scan()
			ch <- line{lines.Text(), ok}
		}()
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case l := <-ch:
			if !l.ok {
				return "", errors.New("stdin ended before an answer")
			}
			return strings.TrimSpace(l.s), nil
		}
	}
	return func(ctx context.Context, q human.Question) (human.Answer, error) {
		fmt.Fprintf(w, "\n%s asks (%s):\n%s\n", q.Agent, q.Path, q.Text)
		for range 5 {
			fmt.Fprintf(w, "answer (%s)> ", promptHint(q))
			text, err := next(ctx)
			if err != nil {
				return human.Answer{}, err
			}
			a, err := parseTyped(q, text)
			if err == nil {
				err = human.Check(q, a)
			}
			if err != nil {
				fmt.Fprintf(w, "%v\n", err)
				continue
			}
			fmt.Fprint(w, "comment (empty for none)> ")
			if a.Comment, err = next(ctx); err != nil {
				return human.Answer{}, err
			}
			a.By = whoAmI()
			return a, nil
		}
		return human.Answer{}, fmt.Errorf("no valid answer to agent %q after 5 tries", q.Agent)
	}
}

func promptHint(q human.Question) string {
	switch q.Kind {
	case human.KindApprove:
		return "y/n"
	case human.KindScore:
		return "0..1, 8/10 or 80%"
	case human.KindChoice:
		return strings.Join(q.Options, "/")
	case human.KindJSON:
		return "a JSON value"
	}
	return "text"
}

// parseTyped reads a terminal line as an answer of q's kind.
func parseTyped(q human.Question, s string) (human.Answer, error) {
	a := human.Answer{Kind: q.Kind}
	var err error
	switch q.Kind {
	case human.KindApprove:
		switch strings.ToLower(s) {
		case "y", "yes", "approve", "approved":
			a.Approved = true
		case "n", "no", "reject", "rejected":
		default:
			err = fmt.Errorf("answer y or n, not %q", s)
		}
	case human.KindScore:
		a.Score, err = human.ParseScore(s)
	case human.KindChoice:
		a.Choice = s
		if i, e := strconv.Atoi(s); e == nil && i >= 1 && i <= len(q.Options) {
			a.Choice = q.Options[i-1]
		}
	case human.KindJSON:
		err = json.Unmarshal([]byte(s), &a.JSON)
	default:
		a.Text = s
	}
	return a, err
}

// whoAmI names the person answering: $COGLOOP_USER, else user@host.
func whoAmI() string {
	if u := os.Getenv("COGLOOP_USER"); u != "" {
		return u
	}
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	if host == "" {
		return name
	}
	return name + "@" + host
}

// answerFlags are the value flags of `cogloop answer`; exactly one is given.
type answerFlags struct {
	approve, reject            bool
	score, text, choice, value string
	comment, path, by          string
	noContinue                 bool
	script, recordDir          string
	quiet                      bool
	allowChange                bool
	store                      storeFlags
}

func (af *answerFlags) answer(set map[string]bool) (human.Answer, error) {
	var given []string
	for _, n := range []string{"approve", "reject", "score", "text", "choice", "json"} {
		if set[n] {
			given = append(given, "--"+n)
		}
	}
	if len(given) != 1 {
		if len(given) == 0 {
			return human.Answer{}, errors.New("give the answer: --approve, --reject, --score N, --text T, --choice C or --json V")
		}
		return human.Answer{}, fmt.Errorf("give one answer, not %s", strings.Join(given, " and "))
	}
	a := human.Answer{Comment: af.comment, Path: af.path, By: af.by}
	if a.By == "" {
		a.By = whoAmI()
	}
	var err error
	switch given[0] {
	case "--approve", "--reject":
		a.Kind, a.Approved = human.KindApprove, af.approve
	case "--score":
		a.Kind = human.KindScore
		a.Score, err = human.ParseScore(af.score)
	case "--text":
		a.Kind, a.Text = human.KindText, af.text
	case "--choice":
		a.Kind, a.Choice = human.KindChoice, af.choice
	case "--json":
		a.Kind = human.KindJSON
		if len(af.value) > 64<<10 {
			return a, errors.New("--json: the value is larger than 64 KiB")
		}
		if e := json.Unmarshal([]byte(af.value), &a.JSON); e != nil {
			err = fmt.Errorf("--json: not valid JSON: %w", e)
		}
	}
	return a, err
}

func cmdAnswer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var af answerFlags
	fs := newFlagSet("answer", stderr)
	fs.BoolVar(&af.approve, "approve", false, "")
	fs.BoolVar(&af.reject, "reject", false, "")
	fs.StringVar(&af.score, "score", "", "")
	fs.StringVar(&af.text, "text", "", "")
	fs.StringVar(&af.choice, "choice", "", "")
	fs.StringVar(&af.value, "json", "", "")
	fs.StringVar(&af.comment, "comment", "", "")
	fs.StringVar(&af.path, "path", "", "")
	fs.StringVar(&af.by, "by", "", "")
	fs.BoolVar(&af.noContinue, "no-continue", false, "")
	fs.StringVar(&af.script, "script", "", "")
	fs.StringVar(&af.recordDir, "record-dir", "", "")
	fs.BoolVar(&af.quiet, "q", false, "")
	fs.BoolVar(&af.allowChange, "allow-config-change", false, "")
	fs.StringVar(&af.store.redisURL, "redis", "", "")
	fs.StringVar(&af.store.namespace, "namespace", "", "")
	usageErr := func(err error) int { return usageError(stderr, "answer", err) }
	runID, err := parseOneArg(fs, args, "one run id")
	if err != nil {
		return usageErr(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	a, err := af.answer(set)
	if err != nil {
		return usageErr(err)
	}
	af.store.recordDir = af.recordDir
	store, err := af.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop answer: %v\n", err)
		return exitFailure
	}
	if store == nil {
		return usageErr(fmt.Errorf("answer %w", errNeedsRedis))
	}
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	if err := cogloop.Answer(ctx, store, runID, a); err != nil {
		fmt.Fprintf(stderr, "cogloop answer: %v\n", err)
		switch {
		case errors.Is(err, cogloop.ErrNotWaiting), errors.Is(err, cogloop.ErrWrongKind), errors.Is(err, human.ErrBadAnswer),
			errors.Is(err, cogloop.ErrAlreadyAnswered):
			return exitUsage
		}
		return exitFailure
	}
	fmt.Fprintf(stderr, "cogloop: answer recorded for run %s\n", runID)
	if af.noContinue {
		return exitOK
	}
	return continueRun(ctx, store, runID, af, stdout, stderr)
}

// continueRun continues run runID in the foreground after its answer, as
// `cogloop run WORKFLOW --resume RUN` with the file, input and script the
// run started with.
func continueRun(ctx context.Context, store memory.Store, runID string, af answerFlags, stdout, stderr io.Writer) int {
	if code, queued := continueQueued(ctx, runID, af, stdout, stderr); queued {
		return code
	}
	info, ok, err := loadRunInfo(ctx, store, runID)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "cogloop answer: read how run %s started: %v\n", runID, err)
		return exitFailure
	case !ok:
		fmt.Fprintf(stderr, "cogloop answer: run %s was not started by `cogloop run`; continue it with --resume %s (or in Go with WithResume)\n", runID, runID)
		return exitUsage
	}
	input, err := json.Marshal(info.Input)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop answer: %v\n", err)
		return exitFailure
	}
	args := []string{info.Workflow, string(input), "--json-input", "--resume", runID}
	if u := af.store.url(); u != "" {
		args = append(args, "--redis", u)
	}
	if af.store.namespace != "" {
		args = append(args, "--namespace", af.store.namespace)
	}
	script := info.Script
	if af.script != "" {
		script = af.script
	}
	if script != "" {
		args = append(args, "--script", script)
	}
	for _, fl := range []struct {
		on   bool
		name string
	}{{info.Strict, "--strict"}, {af.quiet, "-q"}, {af.allowChange, "--allow-config-change"}} {
		if fl.on {
			args = append(args, fl.name)
		}
	}
	if info.Presets != "" {
		args = append(args, "--presets", info.Presets)
	}
	if af.recordDir != "" {
		args = append(args, "--record-dir", af.recordDir)
	}
	return cmdRun(ctx, args, stdout, stderr)
}

func cmdPause(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var sf storeFlags
	fs := newFlagSet("pause", stderr)
	fs.StringVar(&sf.redisURL, "redis", "", "")
	fs.StringVar(&sf.namespace, "namespace", "", "")
	fs.StringVar(&sf.recordDir, "record-dir", "", "")
	runID, err := parseOneArg(fs, args, "one run id")
	if err != nil {
		return usageError(stderr, "pause", err)
	}
	store, err := sf.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop pause: %v\n", err)
		return exitFailure
	}
	if store == nil {
		return usageError(stderr, "pause", fmt.Errorf("pause %w", errNeedsRedis))
	}
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	if err := cogloop.RequestPause(ctx, store, runID); err != nil {
		fmt.Fprintf(stderr, "cogloop pause: %v\n", err)
		if errors.Is(err, cogloop.ErrNotRunning) {
			return exitUsage
		}
		return exitFailure
	}
	fmt.Fprintf(stdout, "pause requested: run %s stops at its next pass boundary with status paused (exit 3); continue it with --resume %s\n", runID, runID)
	return exitOK
}

// listWaiting is `cogloop runs --waiting`: the runs that wait, with their
// questions and when they expire.
func listWaiting(ctx context.Context, sf storeFlags, asJSON bool, stdout, stderr io.Writer) int {
	store, err := sf.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop runs: %v\n", err)
		return exitFailure
	}
	if store == nil {
		return usageError(stderr, "runs", fmt.Errorf("--waiting %w", errNeedsRedis))
	}
	defer func() { _ = store.Close() }() // reads only
	qs, err := cogloop.ListWaiting(ctx, store)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop runs: %v\n", err)
		return exitFailure
	}
	if asJSON {
		if qs == nil {
			qs = []human.Question{}
		}
		return printJSON(stdout, stderr, "cogloop runs", qs)
	}
	if len(qs) == 0 {
		fmt.Fprintln(stdout, "no run waits for an answer")
		return exitOK
	}
	tw := newTable(stdout, "RUN", "AGENT", "KIND", "WAITING", "EXPIRES", "ANSWER WITH", "QUESTION")
	for _, q := range qs {
		tw.row(q.RunID, q.Agent, q.Kind, shortDuration(time.Since(q.AskedAt)), q.Expires.Local().Format(time.DateTime),
			q.FlagFor(), firstLine(q.Text))
	}
	tw.flush()
	return exitOK
}

const answerHelp = `usage: cogloop answer RUN (--approve | --reject | --score N | --text T | --choice C | --json V) [flags]

Records the answer to the question run RUN waits for (a human step) and
continues the run in the foreground, as 'cogloop run WORKFLOW --resume RUN'
with the workflow file, input and script it started with. Two answers racing
for one question: exactly one wins, the other is told. An answer for a run
that does not wait, of the wrong kind, out of range or given twice is refused
with exit 2 and changes nothing. Exit codes as 'cogloop run' (3: the run
waits again or paused).

flags:
  --approve / --reject  answer a question of kind approve
  --score N         kind score: 0..1, or 8/10, or 80%
  --text T          kind text
  --choice C        kind choice: one of the options
  --json V          kind json: a JSON value valid against the step's output_schema
  --comment C       a comment (a loop's lesson patterns read it)
  --path P          the question's path, when the run waits for several
  --by NAME         who answers (default $COGLOOP_USER, else user@host)
  --no-continue     only record the answer
  --script F        answer the continued run's model calls from F (default: the run's own --script)
  --allow-config-change  continue even though the workflow file changed
  --record-dir DIR  where the continued run's record goes
  -q                no run summary
  --redis URL       the store the run waits in (default $REDIS_URL)
  --namespace N     key namespace (default "default")
`

const pauseHelp = `usage: cogloop pause RUN [--redis URL] [--namespace N] [--record-dir D]

Asks run RUN to stop at its next pass boundary with status paused (exit 3);
continue it with 'cogloop run WORKFLOW --resume RUN'. Ctrl-Z (SIGTSTP) on an
interactive run and SIGUSR1 to a worker ask the same. Exit 2 when the run has
no checkpoint or ended. Without --redis the run's checkpoint is a file under
the record directory (--record-dir, default .cogloop/runs).
`

// stopped reports whether res waits for an answer or paused (exit 3).
func stopped(res *cogloop.Result) bool {
	return res != nil && (res.Status == cogloop.StatusWaiting || res.Status == cogloop.StatusPaused)
}

// prepareHuman readies a run for human steps and pauses: it keeps what
// `cogloop answer` needs in the checkpoint of a run with a store, asks
// questions on the terminal (--ask, or a terminal without --redis), and
// turns Ctrl-Z (SIGTSTP) into a pause request for a checkpointed run. The
// returned func stops listening for SIGTSTP.
func prepareHuman(ctx context.Context, f *runFlags, pos []string, input any, wf *cogloop.Workflow, store memory.Store, runID string,
	opts *[]cogloop.RunOption, stderr io.Writer) (func(), error) {
	info := runInfo{Workflow: pos[0], Input: input, Script: f.script, Presets: f.presets, Strict: f.strict}
	switch {
	case store != nil && f.fork != "":
		*opts = append(*opts, cogloop.WithObserver(forkRunInfo(ctx, store, runID, info, stderr)))
	case store != nil && f.resume == "":
		// A run canceled before it started reports its cancellation itself.
		if err := saveRunInfo(ctx, store, runID, wf.Digest, info); err != nil && ctx.Err() == nil {
			return func() {}, fmt.Errorf("run %s: keep how it started, for cogloop answer: %w", runID, err)
		}
	}
	// On a terminal without Redis the CLI asks inline (the run still waits
	// durably in its checkpoint file while it asks).
	if f.ask || (f.store.url() == "" && stdinIsTerminal()) {
		*opts = append(*opts, cogloop.WithHuman(terminalAsker(stdin, stderr)))
	}
	if store == nil && f.runID == "" && f.resume == "" {
		return func() {}, nil // no checkpoint: nothing to pause at
	}
	return pauseOnSignal(ctx, store, runID, stderr), nil
}

// writeHumans is show's account of the questions the run asked: who
// answered what, when, after how long; and what it waits for.
func writeHumans(w io.Writer, s records.Summary) {
	if len(s.Humans) == 0 {
		return
	}
	fmt.Fprintf(w, "\nquestions to people\n")
	tw := newTable(w, "PATH", "KIND", "ANSWER", "BY", "ANSWERED", "WAITED", "QUESTION")
	for _, h := range s.Humans {
		answer, when, waited := "(waiting)", "–", "–"
		if h.Answered {
			// the answer's text has the comment on its own line
			answer = firstLine(strings.ReplaceAll(h.Answer, "\n", " · "))
			when, waited = h.When.Local().Format(time.DateTime), shortDuration(h.Waited)
		}
		tw.row(h.Path, h.Kind, answer, orDash(h.By), when, waited, firstLine(h.Question))
	}
	tw.flush()
	if q := s.Waiting(); q != nil {
		fmt.Fprintf(w, "waiting for: %s (%s, %s): %s\n", q.Agent, q.Path, q.Kind, firstLine(q.Question))
	}
}

// continueQueued puts a run submitted to the queue back in it after its
// answer, for any worker; queued is false when no queue holds the run.
func continueQueued(ctx context.Context, runID string, af answerFlags, stdout, stderr io.Writer) (code int, queued bool) {
	c, err := queue.NewClient(af.store.url())
	if err != nil {
		return 0, false
	}
	defer func() { _ = c.Close() }() // releases the connections
	switch err := queue.Continue(ctx, c, runID); {
	case errors.Is(err, queue.ErrNotFound):
		return 0, false
	case err != nil:
		fmt.Fprintf(stderr, "cogloop answer: the answer is recorded, but the run did not go back to its queue: %v\n", err)
		return exitFailure, true
	}
	fmt.Fprintf(stdout, "run %s is back in its queue: a worker continues it (cogloop status %s; cogloop result %s --wait)\n", runID, runID, runID)
	return exitOK, true
}

// stopNote is what to print about a run that stopped waiting or paused:
// nothing for the interrupt itself (the summary says it), the error when
// something else went wrong on the way (the terminal's answer failed).
func stopNote(err error) error {
	if fault.AsInterrupt(err) != nil {
		return nil
	}
	return err
}
