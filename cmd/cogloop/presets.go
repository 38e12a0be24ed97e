package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cogloop/cogloop/scoring"
)

// cmdPresets lists the boolean-scoring presets: every context without NAME;
// with NAME (a context or alias, a preset level, or context/level) the
// criteria, weights and thresholds.
func cmdPresets(args []string, stdout, stderr io.Writer) int {
	var dir string
	var asJSON bool
	fs := newFlagSet("presets", stderr)
	fs.StringVar(&dir, "presets", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "presets", err)
	}
	if len(pos) > 1 {
		return usageError(stderr, "presets", fmt.Errorf("presets takes at most one name, got %d", len(pos)))
	}
	cat, err := scoring.Default()
	if err == nil && dir != "" {
		cat, err = cat.LoadDir(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitUsage
	}
	name := ""
	if len(pos) == 1 {
		name = pos[0]
	}
	presets, err := selectPresets(cat, name)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitUsage
	}
	if asJSON {
		return writePresetsJSON(stdout, stderr, presets)
	}
	switch {
	case name == "":
		writeContexts(stdout, cat)
	case strings.Contains(name, "/"):
		writePreset(stdout, presets[0])
	default:
		if x, err := cat.Context(name); err == nil {
			writeContext(stdout, x)
			break
		}
		for i, p := range presets {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			writePreset(stdout, p)
		}
	}
	return exitOK
}

// selectPresets resolves NAME: "" is every preset, a context (or alias) its
// presets, a level that level of every context having it, context/level one.
func selectPresets(cat *scoring.Catalog, name string) ([]*scoring.Preset, error) {
	if name == "" {
		return cat.Presets(), nil
	}
	if ctx, level, ok := strings.Cut(name, "/"); ok {
		p, err := cat.Preset(ctx, level)
		if err != nil {
			return nil, err
		}
		return []*scoring.Preset{p}, nil
	}
	if x, err := cat.Context(name); err == nil {
		return x.Presets, nil
	}
	var out []*scoring.Preset
	levels := map[string]bool{}
	for _, p := range cat.Presets() {
		levels[p.Level] = true
		if strings.EqualFold(p.Level, name) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		var ctxs []string
		for _, x := range cat.Contexts() {
			ctxs = append(ctxs, x.Name)
		}
		var lv []string
		for _, p := range cat.Presets() {
			if levels[p.Level] {
				lv = append(lv, p.Level)
				levels[p.Level] = false
			}
		}
		return nil, fmt.Errorf("no scoring context or preset is called %q (contexts: %s; presets: %s; or context/preset)",
			name, strings.Join(ctxs, ", "), strings.Join(lv, ", "))
	}
	return out, nil
}

func writeContexts(w io.Writer, cat *scoring.Catalog) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tPRESETS\tCRITERIA\tDESCRIPTION")
	for _, x := range cat.Contexts() {
		name := x.Name
		if len(x.Aliases) > 0 {
			name += " (" + strings.Join(x.Aliases, ", ") + ")"
		}
		n := len(x.Criteria)
		if n == 0 && len(x.Presets) > 0 {
			n = len(x.Presets[0].Criteria)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", name, strings.Join(x.Levels(), ", "), n, x.Description)
	}
	tw.Flush()
	fmt.Fprintln(w, "\ncogloop presets NAME shows criteria, weights and thresholds (NAME: a context, a preset, or context/preset).")
}

// writeContext prints one context as a table: a row per criterion, a column
// per preset, then the thresholds.
func writeContext(w io.Writer, x *scoring.Context) {
	fmt.Fprintf(w, "%s: %s\n", x.Name, x.Description)
	if len(x.Aliases) > 0 {
		fmt.Fprintf(w, "also called: %s\n", strings.Join(x.Aliases, ", "))
	}
	fmt.Fprintf(w, "source: %s\n\n", x.Source)
	keys := make([]string, 0, len(x.Criteria))
	for _, c := range x.Criteria {
		keys = append(keys, c.Key)
	}
	for _, p := range x.Presets {
		for _, c := range p.Criteria {
			if !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "CRITERION\t")
	for _, p := range x.Presets {
		fmt.Fprintf(tw, "%s\t", strings.ToUpper(p.Level))
	}
	fmt.Fprintln(tw)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t", k)
		for _, p := range x.Presets {
			fmt.Fprintf(tw, "%s\t", weightOf(p, k))
		}
		fmt.Fprintln(tw)
	}
	for _, row := range []struct {
		name string
		val  func(*scoring.Preset) float64
	}{{"approved", func(p *scoring.Preset) float64 { return p.Approved }},
		{"needs_improvement", func(p *scoring.Preset) float64 { return p.NeedsImprovement }}} {
		fmt.Fprintf(tw, "%s\t", row.name)
		for _, p := range x.Presets {
			fmt.Fprintf(tw, "%s\t", fmtNum(row.val(p)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// writePreset prints one preset with its questions.
func writePreset(w io.Writer, p *scoring.Preset) {
	fmt.Fprintf(w, "%s: %s\n", p.Name(), p.Description)
	if p.Instruction != "" {
		fmt.Fprintf(w, "instruction: %s\n", p.Instruction)
	}
	fmt.Fprintf(w, "APPROVED at %s or more, NEEDS_IMPROVEMENT at %s or more, else REJECTED\n", fmtNum(p.Approved), fmtNum(p.NeedsImprovement))
	fmt.Fprintf(w, "source: %s\n\n", p.Source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CRITERION\tWEIGHT\tQUESTION")
	for _, c := range p.Criteria {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Key, fmtNum(c.Weight), c.Description)
	}
	tw.Flush()
}

type presetJSON struct {
	Context          string          `json:"context"`
	Preset           string          `json:"preset"`
	Description      string          `json:"description,omitempty"`
	Instruction      string          `json:"instruction,omitempty"`
	Approved         float64         `json:"approved"`
	NeedsImprovement float64         `json:"needs_improvement"`
	Criteria         []criterionJSON `json:"criteria"`
	Source           string          `json:"source"`
}

type criterionJSON struct {
	Key         string  `json:"key"`
	Weight      float64 `json:"weight"`
	Description string  `json:"description,omitempty"`
}

func writePresetsJSON(stdout, stderr io.Writer, presets []*scoring.Preset) int {
	out := make([]presetJSON, 0, len(presets))
	for _, p := range presets {
		pj := presetJSON{Context: p.Context, Preset: p.Level, Description: p.Description, Instruction: p.Instruction,
			Approved: p.Approved, NeedsImprovement: p.NeedsImprovement, Source: p.Source}
		for _, c := range p.Criteria {
			pj.Criteria = append(pj.Criteria, criterionJSON{Key: c.Key, Weight: c.Weight, Description: c.Description})
		}
		out = append(out, pj)
	}
	return printJSON(stdout, stderr, "cogloop", out)
}

func weightOf(p *scoring.Preset, key string) string {
	for _, c := range p.Criteria {
		if c.Key == key {
			return fmtNum(c.Weight)
		}
	}
	return "-"
}

// fmtNum prints weights and thresholds with two decimals, or more when they
// need them (0.125).
func fmtNum(f float64) string {
	if math.Abs(f*100-math.Round(f*100)) < 1e-9 {
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)
}
