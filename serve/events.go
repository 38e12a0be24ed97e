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
	id, ok := runID(w, r)
	if !ok {
		return
	}
	if _, err := os.Stat(s.cfg.Records.File(id)); err != nil && !s.isLive(id) {
		if _, err := s.summary(id); err != nil {
			notFoundOr500(w, err)
			return
		}
	}
	last := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("Last-Event-ID %.20q is not an event id of this stream (they count from 1)", v))
			return
		}
		last = n
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
	rc := http.NewResponseController(w)
	bw := bufio.NewWriterSize(w, 32<<10)
	_, _ = bw.WriteString("retry: 1000\n\n")
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		msgs, ok := h.take(c)
		if !ok {
			return // fell behind: the client reconnects with Last-Event-ID
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		for _, m := range msgs {
			fmt.Fprintf(bw, "id: %d\ndata: %s\n\n", m.ID, m.Data)
		}
		if bw.Flush() != nil || rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-c.notify:
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := bw.WriteString(": ping\n\n"); err != nil || bw.Flush() != nil || rc.Flush() != nil {
				return
			}
			continue
		}
		// A burst of events goes out as one write: what arrives within
		// coalesce of the first is sent with it.
		t := time.NewTimer(coalesce)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
