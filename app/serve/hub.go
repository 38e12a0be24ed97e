package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
)

func newRunID() string { return cogloop.NewRunID() }

// maxLine bounds one line of a record read by a hub (as records does).
const maxLine = 64 << 20

// message is one event of a run's stream: ID is its place in the record.
type message struct {
	ID   int
	Kind string
	Data []byte // the event's JSON, one line
}

// client is one reader of a hub. The events stay in the hub, shared; what
// a client owns is its place in them and how far it lags: one that falls
// more than limit events behind is dropped, never waited for.
type client struct {
	notify  chan struct{} // a new event (or the drop) since the client last took
	next    int           // the index of the next event to hand over; h.mu
	pending int           // events added since the client last took; h.mu
	limit   int
	dropped bool // h.mu
}

func (c *client) poke() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// hub reads one run's record as it grows and hands its events to the clients
// watching the run. A hub lives while it has clients.
type hub struct {
	path string

	mu      sync.Mutex
	events  []message
	off     int64
	partial []byte
	broken  bool // a line longer than maxLine: the rest of the record is not read
	clients map[*client]struct{}

	wake chan struct{}
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

func newHub(path string, poll time.Duration) *hub {
	h := &hub{path: path, clients: map[*client]struct{}{}, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	go h.loop(poll)
	return h
}

func (h *hub) loop(poll time.Duration) {
	defer close(h.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-h.wake:
		case <-t.C:
		}
		h.mu.Lock()
		h.read()
		h.mu.Unlock()
	}
}

func (h *hub) close() {
	h.once.Do(func() { close(h.stop) })
	<-h.done
}

func (h *hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// read appends the record's new whole lines to events and sends each to the
// clients; h.mu is held.
func (h *hub) read() {
	if h.broken {
		return
	}
	f, err := os.Open(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return // the run has not created its record yet
	}
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }() // read-only
	st, err := f.Stat()
	if err != nil || st.Size() <= h.off {
		return // nothing new (or replaced by a new run of the same id: the ids would lie)
	}
	buf := make([]byte, min(st.Size()-h.off, 1<<20))
	for {
		n, err := f.ReadAt(buf, h.off)
		h.off += int64(n)
		h.lines(buf[:n])
		if err == io.EOF || n == 0 || err != nil {
			return
		}
	}
}

// lines splits data (after what was left of the last read) into lines.
func (h *hub) lines(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			h.partial = append(h.partial, data...)
			if len(h.partial) > maxLine {
				h.broken, h.partial = true, nil
			}
			return
		}
		line := data[:i]
		if len(h.partial) > 0 {
			line = append(h.partial, line...)
			h.partial = nil
		}
		data = data[i+1:]
		h.add(bytes.TrimSpace(line))
	}
}

// add keeps a line that is an event (as records.Read does: other lines are
// what a killed run left) and sends it to every client.
func (h *hub) add(line []byte) {
	var head struct {
		Kind string `json:"kind"`
	}
	if len(line) == 0 || json.Unmarshal(line, &head) != nil || head.Kind == "" {
		return
	}
	m := message{ID: len(h.events) + 1, Kind: head.Kind, Data: bytes.Clone(line)}
	h.events = append(h.events, m)
	for c := range h.clients {
		c.pending++
		if c.pending > c.limit { // fell behind: dropped, never waited for
			c.dropped = true
			delete(h.clients, c)
		}
		c.poke()
	}
}

// subscribe reads the record so far and returns a client that takes the
// events after the one with id last.
func (h *hub) subscribe(last, limit int) *client {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.read()
	if last < 0 || last > len(h.events) {
		last = 0 // an id this record never had: everything
	}
	c := &client{notify: make(chan struct{}, 1), next: last, limit: limit}
	h.clients[c] = struct{}{}
	return c
}

// take hands c the events it has not had; ok is false once c was dropped.
func (h *hub) take(c *client) (msgs []message, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.dropped {
		return nil, false
	}
	msgs = h.events[c.next:len(h.events):len(h.events)]
	c.next, c.pending = len(h.events), 0
	return msgs, true
}

// leave removes c and reports how many clients are left.
func (h *hub) leave(c *client) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
	return len(h.clients)
}

// subscribe opens run id's stream after event last; cancel ends it.
func (s *Server) subscribe(id string, last int) (*hub, *client, func(), error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, nil, errors.New("the server is shutting down")
	}
	h := s.hubs[id]
	if h == nil {
		h = newHub(s.cfg.Records.File(id), s.cfg.Poll)
		s.hubs[id] = h
	}
	c := h.subscribe(last, s.cfg.ClientBuffer)
	s.mu.Unlock()
	cancel := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if h.leave(c) == 0 && s.hubs[id] == h {
			delete(s.hubs, id)
			go h.close()
		}
	}
	return h, c, cancel, nil
}

// wake makes the readers of run id read its record now.
func (s *Server) wake(id string) {
	s.mu.Lock()
	h := s.hubs[id]
	s.mu.Unlock()
	if h != nil {
		h.poke()
	}
}
