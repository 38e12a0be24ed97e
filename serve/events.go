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
	backlog, c, cancel, err := s.subscribe(id, last)
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer cancel()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bw := bufio.NewWriterSize(w, 32<<10)
	send := func(msgs ...message) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		for _, m := range msgs {
			fmt.Fprintf(bw, "id: %d\ndata: %s\n\n", m.ID, m.Data)
		}
		return bw.Flush() == nil && rc.Flush() == nil
	}
	_, _ = bw.WriteString("retry: 1000\n\n")
	if !send(backlog...) {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case m, ok := <-c.ch:
			if !ok {
				return // fell behind: the client reconnects with Last-Event-ID
			}
			batch := []message{m}
			for more := true; more && len(batch) < 256; {
				select {
				case m, ok := <-c.ch:
					if !ok {
						send(batch...)
						return
					}
					batch = append(batch, m)
				default:
					more = false
				}
			}
			if !send(batch...) {
				return
			}
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := bw.WriteString(": ping\n\n"); err != nil || bw.Flush() != nil || rc.Flush() != nil {
				return
			}
		}
	}
}
