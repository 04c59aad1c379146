package telemetry

import (
	"maps"
	"net"
	"sync"
	"time"

	"github.com/dohyo/dohyo/cql"
)

// CQL request tracing, the way Cassandra users know it: a request with
// the TRACING flag gets a session id in its response, and its session and
// events are then readable from system_traces.sessions and .events. dohyo
// keeps them in memory, bounded (the oldest sessions go first), and builds
// the events from its own spans.

// Bounds of the session store.
const (
	DefaultSessions     = 1000
	MaxEventsPerSession = 1000
)

// TraceStart describes a CQL trace session about to begin.
type TraceStart struct {
	// Request is the kind of request, in Cassandra's words: "Execute CQL3
	// query", "Execute CQL3 prepared query", "Execute batch of CQL3
	// queries", "Preparing CQL3 query".
	Request string
	// Client and Coordinator are the client's and this node's addresses;
	// CoordinatorPort is reported as coordinator_port and source_port.
	Client, Coordinator net.IP
	CoordinatorPort     int
	// Parameters are the request's parameters (query, consistency_level,
	// page_size, serial_consistency_level); never bound values.
	Parameters map[string]string
}

// TraceSession is a row of system_traces.sessions.
type TraceSession struct {
	ID                  cql.UUID
	Command             string // "QUERY"
	Request             string
	Client, Coordinator net.IP
	CoordinatorPort     int
	Parameters          map[string]string
	StartedAt           time.Time
	// Duration is set once the request completed (Done); cqlsh polls
	// until it is.
	Duration time.Duration
	Done     bool
}

// TraceEvent is a row of system_traces.events.
type TraceEvent struct {
	Session    cql.UUID
	ID         cql.UUID // a time UUID: when the event happened
	Activity   string
	Source     net.IP
	SourcePort int
	Elapsed    time.Duration // since the session started
	Thread     string
}

// Sessions is a bounded in-memory store of CQL trace sessions, safe for
// concurrent use.
type Sessions struct {
	now func() time.Time
	gen *cql.TimeUUIDGenerator

	mu   sync.Mutex
	ring []*session // oldest first once full
	next int
	full bool
}

// NewSessions returns a store keeping the last max sessions (max <= 0
// means DefaultSessions).
func NewSessions(max int, clock func() time.Time) *Sessions {
	if max <= 0 {
		max = DefaultSessions
	}
	if clock == nil {
		clock = time.Now
	}
	return &Sessions{now: clock, gen: cql.NewTimeUUIDGenerator(clock), ring: make([]*session, max)}
}

type session struct {
	s     *Sessions
	id    cql.UUID
	start time.Time
	info  TraceStart

	mu       sync.Mutex
	duration time.Duration
	done     bool
	events   []TraceEvent
	dropped  int
}

func (s *Sessions) begin(ts *TraceStart) *session {
	// started_at is kept in milliseconds: elapsed times count from that
	// millisecond, so started_at + source_elapsed is each event's time.
	start := s.now()
	start = start.Add(-time.Duration(start.Nanosecond() % int(time.Millisecond)))
	ss := &session{s: s, id: s.gen.Next(), start: start, info: *ts}
	ss.info.Parameters = maps.Clone(ts.Parameters)
	s.mu.Lock()
	s.ring[s.next] = ss
	s.next++
	if s.next == len(s.ring) {
		s.next, s.full = 0, true
	}
	s.mu.Unlock()
	return ss
}

func (ss *session) add(thread, activity string) {
	now := ss.s.now()
	id := ss.s.gen.Next()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.events) >= MaxEventsPerSession {
		ss.dropped++
		return
	}
	ss.events = append(ss.events, TraceEvent{
		Session: ss.id, ID: id, Activity: activity, Source: ss.info.Coordinator,
		SourcePort: ss.info.CoordinatorPort, Elapsed: now.Sub(ss.start), Thread: thread,
	})
}

func (ss *session) finish() {
	d := ss.s.now().Sub(ss.start)
	ss.mu.Lock()
	if !ss.done {
		ss.done, ss.duration = true, d
	}
	ss.mu.Unlock()
}

func (ss *session) snapshot() TraceSession {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return TraceSession{
		ID: ss.id, Command: "QUERY", Request: ss.info.Request,
		Client: ss.info.Client, Coordinator: ss.info.Coordinator, CoordinatorPort: ss.info.CoordinatorPort,
		Parameters: ss.info.Parameters, StartedAt: ss.start, Duration: ss.duration, Done: ss.done,
	}
}

// all returns the sessions, oldest first.
func (s *Sessions) all() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*session
	if s.full {
		out = append(out, s.ring[s.next:]...)
	}
	return append(out, s.ring[:s.next]...)
}

// List returns every kept session, oldest first.
func (s *Sessions) List() []TraceSession {
	if s == nil {
		return nil
	}
	all := s.all()
	out := make([]TraceSession, len(all))
	for i, ss := range all {
		out[i] = ss.snapshot()
	}
	return out
}

// Events returns every kept event, by session (oldest first) and time.
func (s *Sessions) Events() []TraceEvent {
	if s == nil {
		return nil
	}
	var out []TraceEvent
	for _, ss := range s.all() {
		ss.mu.Lock()
		out = append(out, ss.events...)
		ss.mu.Unlock()
	}
	return out
}

// Get returns one session and its events.
func (s *Sessions) Get(id cql.UUID) (TraceSession, []TraceEvent, bool) {
	if s == nil {
		return TraceSession{}, nil, false
	}
	for _, ss := range s.all() {
		if ss.id == id {
			ss.mu.Lock()
			evs := append([]TraceEvent(nil), ss.events...)
			ss.mu.Unlock()
			return ss.snapshot(), evs, true
		}
	}
	return TraceSession{}, nil, false
}
