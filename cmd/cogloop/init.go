package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cogloop/cogloop/examples"
	"github.com/cogloop/cogloop/schema"
)

const initHelp = `usage: cogloop init [DIR] [--template loop|society|validator]

Writes a runnable workflow (workflow.yaml), the scripted replies that run it
offline (replies.yaml) and a README.md with the commands to run it, offline
and with a real model, into DIR (default: the current directory). Existing
files are never overwritten: init refuses and names them (exit 2).

templates:
  loop        an improver and a scorer in a loop until the score is high enough (default)
  society     three reasoners in a fork, a moderator scoring their consensus, in a loop
  validator   a loop judged by a loop_validator, then a plan_validator

flags:
  --template T      the starter workflow (default loop)
`

// initTemplates maps a template name to the example it is written from.
var initTemplates = map[string]string{"loop": "quality", "society": "society", "validator": "validator"}

// initFiles are the files init writes, in order.
var initFiles = []string{"workflow.yaml", "replies.yaml", "README.md", ".gitignore"}

// starterIgnore keeps what runs write out of a repository: run records,
// traces and reports.
const starterIgnore = `# written by cogloop runs: run records (cogloop runs/show/report read them)
.cogloop/
# --trace and --report outputs
*.jsonl
*.html
`

func cmdInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("init", stderr)
	tmpl := fs.String("template", "loop", "")
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return usageError(stderr, "init", err)
	case len(pos) > 1:
		return usageError(stderr, "init", fmt.Errorf("init takes one directory, got %d arguments", len(pos)))
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	files, input, err := starterFiles(*tmpl)
	if err != nil {
		return usageError(stderr, "init", err)
	}
	var exist []string
	for _, name := range initFiles {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			exist = append(exist, filepath.Join(dir, name))
		}
	}
	if len(exist) > 0 {
		fmt.Fprintf(stderr, "cogloop init: refusing to overwrite %s; nothing was written (choose another DIR or move them)\n",
			strings.Join(exist, ", "))
		return exitUsage
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "cogloop init: %v\n", err)
		return exitFailure
	}
	for _, name := range initFiles {
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.Write(files[name])
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "cogloop init: write %s: %v\n", path, err)
			return exitFailure
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	fmt.Fprintf(stdout, "\nrun it offline:\n  %s\n", offlineCommand(dir, input))
	return exitOK
}

// runLine is the example's own command line, in its header comment.
var runLine = regexp.MustCompile(`(?m)^#\s+go run \./cmd/cogloop run (examples/[a-z]+/)workflow\.yaml ("[^"\n]*")`)

// starterFiles are the files of template tmpl: the example's workflow with
// the schema line on top and its command rewritten for the new directory, its
// replies, and a README; input is the example's sample input, quoted.
func starterFiles(tmpl string) (files map[string][]byte, input string, err error) {
	ex, ok := initTemplates[tmpl]
	if !ok {
		names := make([]string, 0, len(initTemplates))
		for n := range initTemplates {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, "", fmt.Errorf("unknown template %q (templates: %s)", tmpl, strings.Join(names, ", "))
	}
	wf, err := fs.ReadFile(examples.FS, ex+"/workflow.yaml")
	if err != nil {
		return nil, "", err
	}
	replies, err := fs.ReadFile(examples.FS, ex+"/replies.yaml")
	if err != nil {
		return nil, "", err
	}
	m := runLine.FindSubmatch(wf)
	if m == nil {
		return nil, "", errors.New("the example " + ex + " has no run command in its header") // a test keeps this from happening
	}
	input = string(m[2])
	text := strings.ReplaceAll(string(wf), "go run ./cmd/cogloop run", "cogloop run")
	text = strings.ReplaceAll(text, string(m[1]), "")
	text = "# yaml-language-server: $schema=" + schema.ID + "\n" + text
	return map[string][]byte{
		"workflow.yaml": []byte(text),
		"replies.yaml":  replies,
		"README.md":     []byte(starterReadme(tmpl, input, text)),
		".gitignore":    []byte(starterIgnore),
	}, input, nil
}

func offlineCommand(dir, input string) string {
	return fmt.Sprintf("cogloop run %s %s --script %s", filepath.Join(dir, "workflow.yaml"), input, filepath.Join(dir, "replies.yaml"))
}

func starterReadme(tmpl, input, wf string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# A cogloop %s workflow\n\n", tmpl)
	fmt.Fprintf(&b, "Written by `cogloop init --template %s`. `workflow.yaml` is the workflow; `replies.yaml`\n", tmpl)
	b.WriteString("holds scripted model replies, one per call of each agent, so it runs without a model.\n\n")
	b.WriteString("Run it offline (from this directory):\n\n")
	fmt.Fprintf(&b, "    cogloop run workflow.yaml %s --script replies.yaml\n\n", input)
	b.WriteString("Run it with real models: leave out `--script`. The agents call\n\n")
	if strings.Contains(wf, "ollama") {
		b.WriteString("- Ollama at http://localhost:11434: install it, then `ollama pull` each `model:` of an agent with `provider: ollama`;\n")
	}
	if strings.Contains(wf, "openai-answer") || strings.Contains(wf, "gpt-") {
		b.WriteString("- OpenAI: `export OPENAI_API_KEY=...` (the `openai-answer` agents' `model:` names the model);\n")
	}
	b.WriteString("\nthen:\n\n")
	fmt.Fprintf(&b, "    cogloop run workflow.yaml %s\n\n", input)
	b.WriteString("Check the workflow with `cogloop validate workflow.yaml`; the first line of\n")
	b.WriteString("`workflow.yaml` gives editors with the YAML language server completion from the schema.\n")
	return b.String()
}
