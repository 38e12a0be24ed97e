package llm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/jsonschemax"
)

// OrKa's structured_output modes. cogloop asks for JSON the same way for
// model_json, tool_call and auto (the provider's JSON mode where it has one,
// and instructions in the prompt); prompt sends the instructions only.
var orkaModes = []string{"auto", "model_json", "tool_call", "prompt"}

// orkaDefaultSchemas are OrKa's schemas per agent type for structured_output
// without a schema (orka/utils/structured_output.py): required fields, and
// the types of the others.
var orkaDefaultSchemas = map[string]orkaSchema{
	"openai-answer": {required: []string{"response"},
		types: map[string]string{"confidence": "number", "internal_reasoning": "string"}},
	"openai-classification": {required: []string{"category", "confidence"},
		types: map[string]string{"reasoning": "string", "alternatives": "array"}},
	"openai-binary": {required: []string{"result"},
		types: map[string]string{"result": "boolean", "confidence": "number", "reasoning": "string"}},
}

type orkaSchema struct {
	required []string
	types    map[string]string // field → OrKa type name (string, number, int, bool, list, dict, ...)
}

// readSchema reads output_schema and max_repairs, or OrKa's
// structured_output (top level or under params), into a.Schema.
func readSchema(c, params *load.Config, a *Agent, typeName string) {
	maxRepairs := c.Int("max_repairs", defaultMaxRepairs, 0, 20)
	var doc map[string]any
	var at *load.Config
	key := "output_schema"
	promptOnly := false
	if c.Has("output_schema") {
		at = c
		var v any
		if c.Decode("output_schema", &v) {
			m, ok := v.(map[string]any)
			if !ok {
				c.Errorf("output_schema", "output_schema must be a JSON Schema object ({type: object, properties: {...}, required: [...]})")
				return
			}
			doc = m
		}
	}
	for _, sc := range []*load.Config{c, params} {
		if sc == nil || !sc.Has("structured_output") {
			continue
		}
		so := sc.Map("structured_output")
		if so == nil {
			continue
		}
		d, po, on := readOrkaStructured(so, typeName)
		if !on {
			continue
		}
		if at != nil {
			sc.Errorf("structured_output", "give output_schema or OrKa's structured_output, not both")
			return
		}
		doc, at, key, promptOnly = d, sc, "structured_output", po
	}
	if doc == nil || c.Recording() {
		return
	}
	if ty, ok := doc["type"]; ok && ty != "object" {
		at.Errorf(key, "%s must describe a JSON object (type: object): the reply's fields land in the agent's output", key)
		return
	}
	s := &Schema{Doc: doc, MaxRepairs: maxRepairs}
	if err := s.compile(); err != nil {
		where := ""
		if loc := jsonschemax.ErrorLocation(err); len(loc) > 0 {
			where = " at /" + strings.Join(loc, "/")
		}
		at.Errorf(key, "%s is not a valid JSON Schema%s: %s", key, where, firstLine(err))
		return
	}
	s.PromptOnly = promptOnly
	a.Schema = s
}

// readOrkaStructured reads OrKa's structured_output block: enabled, mode,
// schema {required, optional, types}, strict, coerce_types and
// require_code_block. It returns the JSON Schema it stands for, whether the
// mode is prompt, and whether it is enabled.
func readOrkaStructured(so *load.Config, typeName string) (map[string]any, bool, bool) {
	enabled := so.Bool("enabled", false)
	mode := so.String("mode", "auto")
	if !slices.Contains(orkaModes, mode) {
		hint := ""
		if m := load.Closest(mode, orkaModes); m != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", m)
		}
		so.Errorf("mode", "mode %q is not one of %s%s", mode, strings.Join(orkaModes, ", "), hint)
	}
	strict := so.Bool("strict", false)
	so.IgnoreBecause("(cogloop validates the reply's types and sends a wrong one back for repair; it does not coerce)", "coerce_types")
	so.IgnoreBecause("(a reply with or without a ```json fence is read)", "require_code_block")
	var def orkaSchema
	if sc := so.Map("schema"); sc != nil {
		def.required = sc.Strings("required")
		def.types = map[string]string{}
		for _, k := range []string{"optional", "types"} {
			var m map[string]string // field → type name
			if sc.Decode(k, &m) {
				for f, t := range m {
					def.types[f] = t
				}
			}
		}
		sc.Done()
	} else {
		var ok bool
		if def, ok = orkaDefaultSchemas[typeName]; !ok {
			def = orkaDefaultSchemas["openai-answer"]
		}
	}
	so.Done()
	if !enabled {
		return nil, false, false
	}
	props := map[string]any{}
	for _, f := range def.required {
		props[f] = map[string]any{}
	}
	for f, t := range def.types {
		props[f] = map[string]any{"type": jsonType(t)}
	}
	doc := map[string]any{"type": "object", "properties": props}
	if len(def.required) > 0 {
		req := make([]any, len(def.required))
		for i, f := range def.required {
			req[i] = f
		}
		doc["required"] = req
	}
	if strict {
		doc["additionalProperties"] = false
	}
	return doc, mode == "prompt", true
}

// jsonType is OrKa's reading of a type name as a JSON Schema type.
func jsonType(t string) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "number", "num", "float":
		return "number"
	case "integer", "int":
		return "integer"
	case "boolean", "bool":
		return "boolean"
	case "array", "list":
		return "array"
	case "object", "dict":
		return "object"
	}
	return "string"
}

func firstLine(err error) string {
	s := strings.TrimSpace(err.Error())
	lines := strings.Split(s, "\n")
	best := lines[len(lines)-1]
	return strings.TrimPrefix(strings.TrimSpace(best), "- ")
}
