package prompt

import (
	"strings"
	"testing"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// benchPrompt is a realistic 20-line loop prompt: variables, previous outputs,
// a loop over the past iterations and helper calls.
const benchPrompt = `You are improving an answer over several rounds.
TOPIC: {{ get_input() }}
ROUND: {{ loop_number }}

Current draft from the writer:
{{ previous_outputs.writer.response }}

Reviewer notes (confidence {{ previous_outputs.reviewer.confidence }}):
{{ previous_outputs.reviewer.response }}

{% if has_past_loops() %}Previous attempts:
{% for past in get_past_loops() %}- Round {{ past.loop_number }} scored {{ past.score }}: {{ past.insights }}
{% endfor %}{% endif %}
Metadata: insights={{ past_loops_metadata.insights }}

Improve the draft. Keep what worked, fix what the reviewer flagged.
Answer with the full revised text, then a line "SCORE: X.XX".
Do not repeat the instructions.
`

func benchData() Data {
	past := []any{
		map[string]any{"loop_number": 1, "score": 0.42, "insights": "too vague"},
		map[string]any{"loop_number": 2, "score": 0.61, "insights": "needs examples"},
		map[string]any{"loop_number": 3, "score": 0.74, "insights": "structure improved"},
	}
	return Data{
		Input: map[string]any{
			"input":            "Explain how vaccines train the immune system.",
			"previous_outputs": map[string]any{"past_loops": past},
			"loop_number":      4,
		},
		Previous: map[string]any{
			"writer":   map[string]any{"response": strings.Repeat("Vaccines expose the body to a harmless piece of a pathogen. ", 8), "confidence": 0.8},
			"reviewer": map[string]any{"response": "Add one concrete example and define antibodies.", "confidence": 0.9},
		},
		LoopNumber:        4,
		PastLoopsMetadata: map[string]any{"insights": "needs examples | too vague"},
	}
}

func BenchmarkRender(b *testing.B) {
	t, err := Parse("bench", benchPrompt, Options{})
	if err != nil {
		b.Fatal(err)
	}
	d := benchData()
	out, err := t.Render(d)
	if err != nil || !strings.Contains(out, "Round 3 scored 0.74") {
		b.Fatalf("render: %v\n%s", err, out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := t.Render(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderPlain(b *testing.B) {
	t, err := Parse("plain", "Summarise the following text in three sentences.", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Render(Data{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderParallel(b *testing.B) {
	t, err := Parse("bench", benchPrompt, Options{})
	if err != nil {
		b.Fatal(err)
	}
	d := benchData()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := t.Render(d); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRenderGonjaBaseline renders the same prompt with a stock gonja
// environment (helpers as plain Go closures), for comparison with
// BenchmarkRender: what the hardening and the fast paths cost or save.
func BenchmarkRenderGonjaBaseline(b *testing.B) {
	d := benchData()
	in := d.Input.(map[string]any)
	past := in["previous_outputs"].(map[string]any)["past_loops"]
	env := &exec.Environment{
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions),
		Filters:           builtins.Filters,
		Tests:             builtins.Tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}
	ld, err := loaders.NewMemoryLoader(map[string]string{"/p": benchPrompt})
	if err != nil {
		b.Fatal(err)
	}
	tpl, err := exec.NewTemplate("/p", config.New(), ld, env)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ctx := exec.NewContext(map[string]any{
			"input":               d.Input,
			"previous_outputs":    d.Previous,
			"loop_number":         d.LoopNumber,
			"past_loops_metadata": d.PastLoopsMetadata,
			"get_input":           func() string { return in["input"].(string) },
			"has_past_loops":      func() bool { return true },
			"get_past_loops":      func() any { return past },
		})
		if _, err := tpl.ExecuteToString(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExprEval(b *testing.B) {
	e, err := ParseExpr("while", "previous_outputs.reviewer.confidence < 0.95 and loop_number < 5", Options{})
	if err != nil {
		b.Fatal(err)
	}
	d := benchData()
	b.ReportAllocs()
	for b.Loop() {
		v, err := e.Eval(d)
		if err != nil || !Truthy(v) {
			b.Fatal(v, err)
		}
	}
}
