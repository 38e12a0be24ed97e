package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents/secrets"
)

const scriptHelp = `usage: cogloop script RUN [flags] > replies.yaml

Turns a recorded run (an id, a unique prefix, "latest", or a record file)
into a --script file: every model reply of the run, in order, per agent.
A reply is written as its text, or {text, usage} when the model reported
tokens, {error} for a failed call (a retry takes the next reply), and
{text, tool_calls: [{id, tool, args}]} when the model asked for tools.
Replies were scrubbed of the run's secrets when recorded; the values of
environment variables named *_KEY, *_TOKEN, *_SECRET or *PASSWORD* are
scrubbed again. Run the workflow offline with it:
  cogloop run WORKFLOW.yaml INPUT --script replies.yaml
or replay the run exactly, request by request, with --replay RUN.
Exit codes: 0 written, 1 the record has no model calls, 2 bad usage or no such run.

flags (before or after the argument):
  --record-dir DIR  where runs are recorded (default $COGLOOP_RECORD_DIR, else .cogloop/runs)
  -o F              write to F instead of stdout
`

func cmdScript(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("script", stderr)
	var dirFlag, outPath string
	fs.StringVar(&dirFlag, "record-dir", "", "")
	fs.StringVar(&outPath, "o", "", "")
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return usageError(stderr, "script", err)
	case len(pos) != 1:
		return usageError(stderr, "script", fmt.Errorf("script takes one run, got %d arguments", len(pos)))
	}
	id, calls, err := readRecordedCalls(pos[0], dirFlag)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop script: %v\n", err)
		if strings.Contains(err.Error(), "recorded no model calls") || strings.Contains(err.Error(), "without their requests") {
			return exitFailure
		}
		return exitUsage
	}
	doc := scriptDoc(id, calls, envSecrets(os.Environ()))
	data, err := yaml.Marshal(doc)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop script: %v\n", err)
		return exitFailure
	}
	if outPath == "" {
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(outPath, data, 0o600)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cogloop script: write: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// envSecrets are the values of environment variables that look like secrets.
func envSecrets(env []string) []secrets.Secret {
	var out []secrets.Secret
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if len(v) >= 8 && (strings.HasSuffix(u, "_KEY") || strings.HasSuffix(u, "_TOKEN") || strings.HasSuffix(u, "_SECRET") || strings.Contains(u, "PASSWORD")) {
			out = append(out, secrets.NewNamed(k, v))
		}
	}
	return out
}

// scriptDoc is the --script document of calls: a mapping agent → replies,
// agents in the order of their first call.
func scriptDoc(run string, calls []recordedCall, keys []secrets.Secret) *yaml.Node {
	scrub := func(s string) string { return secrets.Scrub(s, keys...) }
	root := &yaml.Node{Kind: yaml.MappingNode,
		HeadComment: fmt.Sprintf("Model replies of run %s, in order per agent (cogloop script).\nUse: cogloop run WORKFLOW.yaml INPUT --script THIS_FILE", run)}
	lists := map[string]*yaml.Node{}
	for _, c := range calls {
		list := lists[c.agent]
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode}
			lists[c.agent] = list
			root.Content = append(root.Content, str(c.agent), list)
		}
		list.Content = append(list.Content, replyNode(c, scrub))
	}
	return root
}

func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func replyNode(c recordedCall, scrub func(string) string) *yaml.Node {
	if c.err != "" {
		return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("error"), str(scrub(c.err))}}
	}
	if c.usage.PromptTokens == 0 && c.usage.CompletionTokens == 0 && len(c.toolCalls) == 0 {
		return str(scrub(c.reply))
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("text"), str(scrub(c.reply))}}
	if len(c.toolCalls) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, t := range c.toolCalls {
			tc := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			// The scripted parser's keys: id, tool (the recorded name) and
			// args as JSON text, sent as is.
			for _, k := range [][2]string{{"id", "id"}, {"tool", "name"}, {"args", "args"}} {
				v, _ := t[k[1]].(string)
				tc.Content = append(tc.Content, str(k[0]), str(scrub(v)))
			}
			seq.Content = append(seq.Content, tc)
		}
		m.Content = append(m.Content, str("tool_calls"), seq)
	}
	if c.usage.PromptTokens != 0 || c.usage.CompletionTokens != 0 {
		u := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
			str("prompt_tokens"), {Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(c.usage.PromptTokens)},
			str("completion_tokens"), {Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(c.usage.CompletionTokens)}}}
		m.Content = append(m.Content, str("usage"), u)
	}
	return m
}
