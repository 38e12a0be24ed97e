package cogloop

import "github.com/cogloop/cogloop/agents"

// Document is the run's result as the JSON document `cogloop run --json`
// prints (and `cogloop result` prints for a queued run): run_id, status,
// errors, warnings, output and every top-level agent's output by id.
func (r *Result) Document() map[string]any {
	outputs := map[string]any{}
	r.Outputs.Each(func(id string, o agents.Output) bool {
		outputs[id] = o.Record()
		return true
	})
	errs := r.Errors
	if errs == nil {
		errs = []RunError{}
	}
	warnings := r.Warnings
	if warnings == nil {
		warnings = []RunWarning{}
	}
	doc := map[string]any{"run_id": r.RunID, "status": r.Status, "errors": errs, "warnings": warnings,
		"output": r.Response, "outputs": outputs}
	if r.Waiting != nil {
		doc["waiting"] = r.Waiting
	}
	return doc
}
