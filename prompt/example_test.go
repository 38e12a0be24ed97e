package prompt_test

import (
	"fmt"

	"github.com/cogloop/cogloop/prompt"
)

func ExampleParse() {
	t, err := prompt.Parse("improver", `Improve: {{ get_input() }}
{% for p in get_past_loops() %}- round {{ p.loop_number }} scored {{ p.score }}
{% endfor %}Reviewer: {{ previous_outputs.reviewer.response|truncate(20) }}`, prompt.Options{})
	if err != nil {
		panic(err)
	}
	out, err := t.Render(prompt.Data{
		Input: map[string]any{
			"input":            "a haiku about Go",
			"previous_outputs": map[string]any{"past_loops": []any{map[string]any{"loop_number": 1, "score": 0.5}}},
		},
		Previous:   map[string]any{"reviewer": map[string]any{"response": "Needs a seasonal word and fewer syllables."}},
		LoopNumber: 2,
	})
	fmt.Println(out, err)
	// Output:
	// Improve: a haiku about Go
	// - round 1 scored 0.5
	// Reviewer: Needs a seasonal ... <nil>
}

func ExampleParse_syntaxError() {
	_, err := prompt.Parse("writer", "Hello\n{% include 'secrets.txt' %}", prompt.Options{})
	fmt.Println(err)
	// Output:
	// template "writer" line 2 col 1: {% include %} is not allowed in cogloop prompts: templates cannot load other templates
}

func ExampleTemplate_Eval() {
	t, _ := prompt.Parse("score", "{{ score * 2 }}", prompt.Options{})
	v, _ := t.Eval(prompt.Data{Vars: map[string]any{"score": 0.4}})
	fmt.Printf("%v (%T)\n", v, v)
	// Output:
	// 0.8 (float64)
}

func ExampleParseExpr() {
	cond, err := prompt.ParseExpr("while", "previous_outputs.review.approved == false", prompt.Options{})
	if err != nil {
		panic(err)
	}
	v, _ := cond.Eval(prompt.Data{Previous: map[string]any{"review": map[string]any{"approved": false}}})
	fmt.Println(prompt.Truthy(v))
	// Output:
	// true
}
