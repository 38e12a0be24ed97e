package serve

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

// heartbeat keeps an idle event stream's connection open through proxies.
const heartbeat = 15 * time.Second

// coalesce is how long a stream gathers events after the first of a burst
// before it writes them: one write for a burst, not one per event.
const coalesce = 50 * time.Millisecond

// writeTimeout bounds each write to an event stream's client: a client that
// reads nothing is cut off, not waited for.
const writeTimeout = 10 * time.Second

// apiEvents streams run id's events as Server-Sent Events: the events so far
// (after Last-Event-ID, when the client sends one), then each new one as the
// run writes it. Every event's id is its place in the run's record.
func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, last, ok := s.eventsRequest(w, r)
	if !ok {
		return
	}
	h, c, cancel, err := s.subscribe(id, last)
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer cancel()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := sse{rc: http.NewResponseController(w), bw: bufio.NewWriterSize(w, 32<<10)}
	_, _ = st.bw.WriteString("retry: 1000\n\n")
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		msgs, ok := h.take(c)
		if !ok {
			return // fell behind: the client reconnects with Last-Event-ID
		}
		if !st.send(msgs) {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-c.notify:
		case <-tick.C:
			if !st.ping() {
				return
			}
			continue
		}
		// A burst of events goes out as one write: what arrives within
		// coalesce of the first is sent with it.
		if !s.gather(r) {
			return
		}
	}
}

// eventsRequest reads the run id and the Last-Event-ID (0: none) of an
// events request; ok is false when the request was answered with an error.
func (s *Server) eventsRequest(w http.ResponseWriter, r *http.Request) (id string, last int, ok bool) {
	id, ok = runID(w, r)
	if !ok {
		return "", 0, false
	}
	if _, err := os.Stat(s.cfg.Records.File(id)); err != nil && !s.isLive(id) {
		if _, err := s.summary(id); err != nil {
			notFoundOr500(w, err)
			return "", 0, false
		}
	}
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("Last-Event-ID %.20q is not an event id of this stream (they count from 1)", v))
			return "", 0, false
		}
		last = n
	}
	return id, last, true
}

// gather waits coalesce for more events of a burst; false when the client
// or the server went away meanwhile.
func (s *Server) gather(r *http.Request) bool {
	t := time.NewTimer(coalesce)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// sse writes one client's event stream; each write is bounded by
// writeTimeout, and false means the client is gone.
type sse struct {
	rc *http.ResponseController
	bw *bufio.Writer
}

// send writes msgs as events.
func (st sse) send(msgs []message) bool {
	_ = st.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	for _, m := range msgs {
		fmt.Fprintf(st.bw, "id: %d\ndata: %s\n\n", m.ID, m.Data)
	}
	return st.bw.Flush() == nil && st.rc.Flush() == nil
}

// ping writes the heartbeat comment.
func (st sse) ping() bool {
	_ = st.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := st.bw.WriteString(": ping\n\n"); err != nil {
		return false
	}
	return st.bw.Flush() == nil && st.rc.Flush() == nil
}
