// Package prompt owns cogloop's prompt templates: Jinja templates (OrKa's
// dialect) parsed with gonja v2 in a hardened environment, the variables they
// see, and OrKa's helper functions and filters.
//
// # Templates
//
// [Parse] parses a template once, at load time; a template that does not parse
// is a [*SyntaxError] with a line and column relative to its source.
// [Template.Render] renders it with a [Data]: input, previous_outputs,
// loop_number (inside loops), past_loops_metadata (inside loops) and every
// Data.Vars entry. [Template.Eval] evaluates a template that is a single
// {{ expression }} to a typed value, and [ParseExpr] parses a bare expression
// such as a loop's while condition; [Truthy] reads a value as a condition.
//
// Undefined names and attributes render empty, as in OrKa, also through chains
// ({{ input.missing.deeper }}); [Options.Strict] makes them errors. Floats
// render in Python's form (1.0, 0.5), booleans as True/False, mappings and
// lists as Python's repr.
//
// # Sandbox
//
// Templates cannot load other templates or files: include, import, from,
// extends and block are rejected by Parse, and the loader refuses every name.
// Values in Data are data: they are written as text and never parsed as
// templates. Templates cannot change Data: {% set %} assigns names or
// attributes of namespace() objects only, and list methods work on copies.
// Resources are bounded ([ErrLimit]): output size, the size of any value a
// template builds, loop iterations, range(), macro recursion, nesting, and the
// template size.
//
// Where gonja and Jinja differ, templates get Jinja's (Python's) behaviour:
// x[-1] on a one-element list, -7 // 2 == -4, "%s" % x formatting, 2 ** 3 == 8,
// reverse keeps order, strings iterate by character, conditional expressions
// work anywhere Jinja allows them (chained, in parentheses, arguments, lists,
// {% set %}) and evaluate only the chosen branch, string literals have Python's
// escapes ('\s*' is a backslash and an s, '\1' is chr(1)), and methods can be
// called on parenthesised expressions ((x | default({})).items()). A for
// target named loop hides the loop variable ({% for loop in get_past_loops()
// %}, from OrKa's documentation; Jinja2 rejects it): [Template.Warnings] says
// so. Mappings made with [View] keep their own key
// order (Python dicts keep insertion order): agents' outputs print, iterate,
// list items() and encode in OrKa's order. Known differences that
// remain: Go maps iterate in sorted key order (they have none), None renders
// empty like an undefined name, and {% do items.append(x) %} inside a loop body
// does not change the list outside the loop (use namespace()).
//
// # Helpers
//
// OrKa's helper functions (get_input, get_past_loops, get_agent_response,
// safe_get_response, get_loop_output, get_execution_artifacts,
// get_debate_evolution, get_agent_memory_context, ...) behave as OrKa intends them to
// (spec §2 [intent]); they read only the Data of the render they are called
// from. OrKa's filters (truncate, tojson, to_json_string, safe_get,
// format_loop_metadata) replace or extend gonja's builtin filters.
//
// # Names
//
// [Template.Names] lists what a template reads, with positions: variables it
// does not bind itself, functions, filters, tests, and the agent ids it reads
// from previous_outputs. [Check] reports the undefined ones for a [Scope]
// (what the caller binds where the template renders); the known functions,
// filters and tests are read from the environment where they are registered.
// [Template.Missing] lists the variables one render's Data leaves unbound, and
// [Template.Undefined] recognises a render that failed on an undefined call.
//
// # Speed
//
// gonja evaluates expressions through reflection, a value per step, and
// renders through a visitor with a context map per scope. A template made of
// text, {{ }} outputs, {% if %}, {% for %}, break, continue and comments is
// planned at parse time (plan.go) and renders without gonja's renderer:
// variable paths (previous_outputs.w.response), helper calls with literal
// arguments and filters with literal arguments ({{ p.insights | truncate(200)
// }}) are evaluated directly on the Go data, other expressions by gonja's
// evaluator in a context holding the same variables. When a planned render
// meets anything it does not reproduce exactly (an error, a strict undefined
// name, a limit), the template is rendered again through gonja, whose output or
// error is the answer; other templates always render through gonja, with the
// same fast paths for expressions. A render binds only the variables whose
// names occur in the template's tokens when they are fewer than Data holds; a
// template without tags is its text. Tests and fuzz targets compare each path
// with gonja's on every template of the repository.
//
// Parsing lexes each template once, with regexps shared by all templates, and
// one empty gonja template object serves every render.
//
// # Concurrency and lifecycle
//
// A [Template] and an [Expr] are safe for concurrent use: after parsing only a
// buffer-size hint changes (atomically); every Render or Eval builds its own
// small context and shares nothing mutable with other calls. The filter, test and function tables are
// built once per process and never change. Nothing needs closing.
//
// # Imports
//
// It imports internal/ascii, internal/perf, internal/pyvalue and
// internal/textdist.
package prompt
