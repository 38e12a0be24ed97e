package serve

import "net/http"

// steering adds the endpoints that steer a run (answer, pause) when the
// steering API is there.
func (s *Server) steering(_ *http.ServeMux) {}
