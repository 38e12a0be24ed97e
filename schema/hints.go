package schema

// hints give the shape of keys the loader reads as raw YAML (lists of agents,
// nested workflows, condition trees) or whose names are the user's (a loop's
// past_loops_metadata). A hint on a mapping key is merged into the recorded
// object; on any other key it replaces the property. The keys are paths:
// "workflow.<key>", "internal_workflow.<key>", "<agent type>.<key>[.<key>]".
// TestHintsNameRecordedKeys fails when a hint names a key the loader does not
// read, so the table cannot drift from the loader.
var hints = map[string]map[string]any{
	"workflow":                       {"required": []string{"orchestrator", "agents"}},
	"workflow.orchestrator":          {"required": []string{"agents"}},
	"internal_workflow":              {"required": []string{"agents"}},
	"internal_workflow.orchestrator": {"required": []string{"agents"}},
	"workflow.agents":                agentList("The agent definitions of the workflow."),
	"internal_workflow.agents":       agentList("The agent definitions of the internal workflow."),
	"loop.internal_workflow": {"$ref": "#/$defs/internal_workflow",
		"description": "The workflow each pass runs: {orchestrator: {id, strategy, agents: [...]}, agents: [...]}."},
	"loop.stop_when": {"$ref": "#/$defs/condition",
		"description": "Stop conditions: a list (any of them), {any: [...]}, {all: [...]} or one condition."},
	"loop.past_loops_metadata": {"additionalProperties": map[string]any{"type": "string"},
		"description": "Fields of each past_loops entry: name → template."},
	"loop.cognitive_extraction.extract_patterns": {"additionalProperties": stringOrList,
		"description": "Regex lists per category: insights, improvements, mistakes, or a category of your own."},
	"loop.input_mappings":  {"type": "array", "items": map[string]any{"type": "object"}},
	"loop.output_mappings": {"type": "array", "items": map[string]any{"type": "object"}},
	"fork.targets": {"type": "array", "description": "Branches: an agent id, or a list of ids run in order.",
		"items": stringOrList},
	"failover.children": agentList("The agents tried in order until one succeeds, defined inline."),
	"router.params.routing_map": {"type": "object", "additionalProperties": stringOrList,
		"description": "Decision value → agent id or list of ids."},
	"http":       {"required": []string{"url", "allow_hosts"}},
	"command":    {"required": []string{"command"}},
	"read_file":  {"required": []string{"root"}},
	"write_file": {"required": []string{"root"}},
	"command.command": {"type": "array", "minItems": 1, "items": map[string]any{"type": "string"},
		"description": "The program and its arguments, each a template; never run through a shell."},
	"http.headers": {"additionalProperties": map[string]any{"type": "string"},
		"description": "Header name → value template."},
	"openai-answer.output_schema":          outputSchema,
	"openai-binary.output_schema":          outputSchema,
	"openai-classification.output_schema":  outputSchema,
	"local_llm.output_schema":              outputSchema,
	"llm.output_schema":                    outputSchema,
	"validate_and_structure.output_schema": outputSchema,
	"scripted.responses": {"description": "Replies in order, one per call: a list, or {cycle: [...]}.",
		"anyOf": []any{map[string]any{"type": "array"}, map[string]any{"type": "object", "required": []string{"cycle"}}}},
}

var outputSchema = map[string]any{"type": "object",
	"description": "A JSON Schema (of an object) the reply must match: validated, repaired at most max_repairs times; its fields land in the output."}

var stringOrList = map[string]any{"anyOf": []any{
	map[string]any{"type": "string"},
	map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
}}

func agentList(desc string) map[string]any {
	return map[string]any{"type": "array", "description": desc, "items": map[string]any{"$ref": "#/$defs/agent"}}
}

// sharedDefs are $defs that several properties use.
var sharedDefs = map[string]any{
	"duration": map[string]any{
		"description": "Seconds (a number), a Go duration (1m30s) or an ISO-8601 one (PT5S).",
		"anyOf": []any{
			map[string]any{"type": "number", "minimum": 0},
			map[string]any{"type": "string"},
		},
	},
	"condition": map[string]any{
		"description": "A stop condition or a group of them.",
		"anyOf": []any{
			map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/condition"}},
			map[string]any{"type": "object"},
			map[string]any{"type": "string"},
		},
	},
}

// scalarForms are the scalar values a mapping key also takes (retry: none).
var scalarForms = map[string]any{
	"retry": map[string]any{"enum": []any{"none", "false", "off", "no", false}},
}
