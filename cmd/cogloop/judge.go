package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
)

// judgeSpec names who grades an llm-rubric assertion: an agent of the
// workflow (Agent), or a model (Model, with Provider and URL).
type judgeSpec struct {
	Agent, Model, Provider, URL string
}

// defaultJudgeID is the agent id of a judge named by its model: --script
// answers it under this id.
const defaultJudgeID = "judge"

func parseJudge(m map[string]json.RawMessage, where string) (*judgeSpec, error) {
	j := &judgeSpec{}
	for key, dst := range map[string]*string{"judge": &j.Agent, "model": &j.Model, "provider": &j.Provider, "model_url": &j.URL} {
		if raw, ok := m[key]; ok {
			if json.Unmarshal(raw, dst) != nil || *dst == "" {
				return nil, fmt.Errorf("%s.%s: needs text, got %s", where, key, jsonKind(raw))
			}
		}
	}
	switch {
	case j.Agent != "" && j.Model != "":
		return nil, fmt.Errorf(`%s: llm-rubric takes "judge" (an agent of the workflow) or "model", not both`, where)
	case j.Agent == "" && j.Model == "":
		return nil, fmt.Errorf(`%s: llm-rubric needs "judge": "AGENT_ID" (an agent of the workflow) or "model": "MODEL_NAME"`, where)
	case j.Agent != "" && (j.Provider != "" || j.URL != ""):
		return nil, fmt.Errorf(`%s: "provider" and "model_url" go with "model", not "judge"`, where)
	}
	return j, nil
}

// key identifies the judge's workflow.
func (j *judgeSpec) key() string {
	return j.Agent + "\x00" + j.Model + "\x00" + j.Provider + "\x00" + j.URL
}

// id is the agent id the judge's calls go by (the one --script answers).
func (j *judgeSpec) id() string {
	if j.Agent != "" {
		return j.Agent
	}
	return defaultJudgeID
}

// judgeWorkflow builds the one-agent workflow that asks the judge: the
// workflow's agent (from file, its prompt replaced by the grading request) or
// an agent of the named model.
func judgeWorkflow(j *judgeSpec, file string, lo []cogloop.LoadOption) (*cogloop.Workflow, error) {
	var agent *yaml.Node
	if j.Agent != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		if agent = findAgent(&doc, j.Agent); agent == nil {
			return nil, fmt.Errorf("llm-rubric judge %q is not an agent of %s: define it under agents: (it need not be in the orchestrator's list)", j.Agent, file)
		}
		setKey(agent, "prompt", "{{ input }}")
	} else {
		spec := map[string]string{"id": defaultJudgeID, "type": "openai-answer", "model": j.Model, "prompt": "{{ input }}"}
		if j.Provider != "" && j.Provider != "openai" {
			spec["type"], spec["provider"] = "local_llm", j.Provider
			if j.URL != "" {
				spec["model_url"] = j.URL
			}
		}
		agent = &yaml.Node{}
		if err := agent.Encode(spec); err != nil {
			return nil, err
		}
	}
	var doc yaml.Node
	if err := doc.Encode(map[string]any{"orchestrator": map[string]any{"id": "llm-rubric", "agents": []string{j.id()}}}); err != nil {
		return nil, err
	}
	doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "agents"}, &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{agent}})
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	wf, err := cogloop.Parse(out, "llm-rubric judge "+j.id(), lo...)
	if err != nil {
		return nil, fmt.Errorf("llm-rubric judge %q: %w", j.id(), err)
	}
	return wf, nil
}

// findAgent finds the mapping with id: id in any agents: list of the document.
func findAgent(n *yaml.Node, id string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "id" && n.Content[i+1].Value == id {
				return n
			}
		}
	}
	for _, c := range n.Content {
		if a := findAgent(c, id); a != nil {
			return a
		}
	}
	return nil
}

func setKey(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: value}
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &yaml.Node{Kind: yaml.ScalarNode, Value: value})
}

// judgePrompt asks for a verdict as one JSON object.
func judgePrompt(rubric, answer string) string {
	return "You grade an answer against a rubric.\n\nRubric:\n" + rubric + "\n\nAnswer:\n" + answer +
		"\n\nReply with one JSON object and nothing else: {\"pass\": true or false, \"reason\": \"one sentence\"}"
}

// verdict reads the judge's reply: the outermost {...} must be an object
// with a boolean "pass" and a "reason".
func verdict(reply string) (pass bool, reason string, err error) {
	i, k := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if i < 0 || k < i {
		return false, "", fmt.Errorf("the judge's reply is not a JSON object: %s", quoteShort(reply))
	}
	var v struct {
		Pass   *bool  `json:"pass"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(reply[i:k+1]), &v); err != nil {
		return false, "", fmt.Errorf("the judge's reply is not {\"pass\": true|false, \"reason\": \"...\"}: %s", quoteShort(reply))
	}
	if v.Pass == nil {
		return false, "", fmt.Errorf("the judge's reply has no \"pass\": %s", quoteShort(reply))
	}
	return *v.Pass, v.Reason, nil
}

// judge runs an llm-rubric assertion through its judge workflow, with the
// run's models (the same script, so the judge's replies follow the run's).
func (a *assertion) judgeRun(ctx context.Context, wf *cogloop.Workflow, models agents.ModelSource, answer string) assertResult {
	r := assertResult{Kind: a.Kind, Value: a.Value}
	var opts []cogloop.RunOption
	if models != nil {
		opts = append(opts, cogloop.WithModels(models))
	}
	res, err := wf.Run(ctx, judgePrompt(a.text, answer), opts...)
	if res != nil {
		// the judge's calls count, failed or not
		r.Tokens, r.Cost = res.Usage.Total(), res.Usage.Cost
	}
	if err == nil && res != nil && res.Status != cogloop.StatusOK {
		err = errors.New("the judge's run failed")
	}
	if err != nil {
		r.Reason = fmt.Sprintf("judge %q: %v", a.judge.id(), err)
		return r
	}
	pass, reason, err := verdict(res.Text())
	switch {
	case err != nil:
		r.Reason = fmt.Sprintf("judge %q: %v", a.judge.id(), err)
	case !pass:
		r.Reason = fmt.Sprintf("judge %q: %s", a.judge.id(), orText(reason, "failed (no reason given)"))
	default:
		r.Pass = true
	}
	return r
}

func orText(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}
