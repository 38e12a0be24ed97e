package prompt

// Undefined lists the variables e reads unguarded that neither d nor the
// environment (helpers, range, namespace, ...) defines ([Template.Missing]).
// Rendering treats an undefined name as empty, as OrKa does; a caller for
// which a value that cannot be read is an error (a loop's stop condition)
// asks Undefined before [Expr.Eval].
func (e *Expr) Undefined(d Data) []string { return e.t.Missing(d) }

// Message is the error's cause in plain words, without the template name and
// line ("cannot call method "lower" of an undefined value"), for callers that
// say where the template is themselves.
func (e *RenderError) Message() string { return cleanMessage(e.Err) }
