package cogloop

// Source returns the YAML the workflow was built from and the name it was
// given (its path for [Load]): what a queue submits for a worker to load.
// ok is false for a workflow that was not built from YAML.
func (w *Workflow) Source() (name string, data []byte, ok bool) {
	return w.name, w.src, w.src != nil
}
