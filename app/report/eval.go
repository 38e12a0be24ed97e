package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sync"
	"time"
)

// Eval is what the page of one eval shows: its totals and one row per run
// (dataset line × repeat), each linking to that run's own report page.
type Eval struct {
	Workflow, Dataset string
	// Passed: the pass rate was met overall and on every line.
	Passed bool
	// Facts are the summary rows (name, value), in order.
	Facts [][2]string
	Runs  []EvalRun
}

// EvalRun is one run of an eval.
type EvalRun struct {
	Line, Repeat   int
	Name           string
	Input, Answer  string
	Status         string
	Pass           bool
	Failures       []string
	Score          string // "" without a loop
	Passes, Tokens int
	Cost           float64
	Duration       time.Duration
	// Link is the run's report page, relative to the eval's page ("" for none).
	Link string
}

//go:embed eval.html.tmpl
var evalSource string

var evalPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("eval").Funcs(template.FuncMap{
		"duration": duration,
		"usd":      func(v float64) string { return fmt.Sprintf("$%.4f", v) },
		// The run report's stylesheet: one look for both pages.
		"style": func() template.CSS { return template.CSS(pageCSS) },
	}).Parse(evalSource))
})

// WriteEval renders e as an HTML page to w; every value is escaped.
func WriteEval(w io.Writer, e Eval) error {
	if err := evalPage().Execute(w, e); err != nil {
		return fmt.Errorf("render eval report: %w", err)
	}
	return nil
}
