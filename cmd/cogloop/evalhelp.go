package main

const evalHelp = `usage: cogloop eval WORKFLOW.yaml --dataset FILE.jsonl [flags]
       cogloop eval A.yaml B.yaml --dataset FILE.jsonl [flags]   (compare two workflows)

Runs the workflow once per dataset line (--repeat N times) and checks each
run's assertions. A dataset line is one JSON object:
  {"input": "text or any JSON value", "name": "optional",
   "assert": [{"type": "icontains", "value": "dolls"}, {"type": "passes", "value": 3}]}
{"expect": {"contains": "..."}} (or equals, regex) is a short form of one
assertion. A line {"default_assert": [...]} adds its assertions to every line.
Assertion types (value is what it compares against):
  contains, icontains, not-contains, equals   text (equals trims whitespace)
  regex              Python syntax, time-bounded
  is-json            the answer is JSON (no value)
  json-schema        the answer is JSON valid against the schema in value
  similar            text; similarity (Levenshtein) at least threshold (default 0.8)
  llm-rubric         a rubric; "judge": AGENT (an agent of the workflow) or "model": NAME
                     (with "provider", "model_url") answers {"pass": bool, "reason": "..."};
                     --script answers it under its agent id ("judge" for a named model)
  passes             at most this many loop passes in the run
  final_score        the run's last loop's final score is at least this
  stop_reason        the last loop stopped for this reason (threshold, max_loops, ...)
  cost, tokens       at most this many dollars, tokens
  latency            the run took at most this long ("2s")
A run passes when it ended ok and every assertion passed; each failure's
reason is printed on stderr ("FAIL line 3: contains: ...") and in --out.
The table shows runs, assertions passed, the pass rate, lines below it, flaky
lines (some repeats passed, some failed), loops that met their threshold,
mean and median final score, passes per run, warnings, tokens, cost and the
slowest runs. With two workflows it shows both side by side (pass rate, mean
final score, passes, tokens, cost) and the lines whose results differ.
A progress bar shows on stderr when it is a terminal. Ctrl-C cancels the runs
in flight and prints the table of the runs that finished.
Exit codes: 0 every run finished and the pass rate is met overall and on
every line, 1 otherwise, 2 bad usage, workflow or dataset, 130 after SIGINT,
143 after SIGTERM.

flags (before or after the arguments):
  --dataset F       the JSONL dataset (required; bad lines are errors naming file:line and field)
  --repeat N        run each line N times (default 1)
  --pass-rate R     the share of runs that must pass, overall and per line (default 1: all)
  --concurrency N   runs at a time (default 4, at most 64)
  --out F           write one JSON line per run to F (line, repeat, status, pass, failures,
                    answer, assertions, scores, loops, tokens, cost, errors, warnings)
  --junit F.xml     write JUnit XML: one test case per line and repeat, failures with reasons
  --report F.html   write the eval's HTML report, with one page per run beside it (F_runs/)
  --script F        answer every LLM call from the scripted replies in F; each run
                    replays them from the start
  --replay RUN      answer every LLM call from recorded run RUN (see 'cogloop help script'),
                    failing at the first call whose request differs from the recorded one;
                    it cannot answer llm-rubric judges (use --script for them)
  --trace F         write every event of every run as one JSON line to F ('-': stderr)
  --strict          every warning (load or run time) is an error
  -q                no progress bar
  --redis URL       keep loop histories in Redis (default $REDIS_URL, else in memory)
  --namespace N     key namespace in the store (default "default")
  --presets DIR     add (or override) scoring presets from DIR
`
