package wire

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
)

// Config configures a Decoder. Zero fields take DefaultConfig's values.
type Config struct {
	// Ports are the CQL server ports: a TCP connection is decoded when
	// one end uses one of them (that end is the server).
	Ports []uint16
	// MaxConnBytes caps what one connection holds: out-of-order
	// segments, undecoded bytes, requests awaiting answers. Past it the
	// connection is dropped (counted).
	MaxConnBytes int
	// MaxTotalBytes caps what all connections hold together.
	MaxTotalBytes int
	// MaxConns caps the connections tracked at once.
	MaxConns int
	// MaxFrame is the largest frame body decoded (Cassandra's
	// native_transport_max_frame_size defaults to 16 MiB).
	MaxFrame int
	// MaxHeld caps the records waiting for a later PREPARE of their id.
	MaxHeld int
	// MaxPrepared caps the prepared statements remembered.
	MaxPrepared int
	// Prepared seeds the prepared statements (by id, as bytes in a
	// string): a first pass over the same capture (Decoder.Prepared).
	Prepared map[string]Prepared
	// Resolve looks up ids still unknown at the end (a server's
	// system.prepared_statements); nil: none.
	Resolve func(ctx context.Context, ids [][]byte) (map[string]Prepared, error)
}

// DefaultConfig returns the defaults: port 9042, 32 MiB per connection,
// 512 MiB in total, 65536 connections, 16 MiB frames, 100000 held
// records and prepared statements.
func DefaultConfig() Config {
	return Config{Ports: []uint16{9042}, MaxConnBytes: 32 << 20, MaxTotalBytes: 512 << 20,
		MaxConns: 1 << 16, MaxFrame: 16 << 20, MaxHeld: 100000, MaxPrepared: 100000}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if len(c.Ports) == 0 {
		c.Ports = d.Ports
	}
	if c.MaxConnBytes <= 0 {
		c.MaxConnBytes = d.MaxConnBytes
	}
	if c.MaxTotalBytes <= 0 {
		c.MaxTotalBytes = d.MaxTotalBytes
	}
	if c.MaxConns <= 0 {
		c.MaxConns = d.MaxConns
	}
	if c.MaxFrame <= 0 {
		c.MaxFrame = d.MaxFrame
	}
	if c.MaxHeld <= 0 {
		c.MaxHeld = d.MaxHeld
	}
	if c.MaxPrepared <= 0 {
		c.MaxPrepared = d.MaxPrepared
	}
	return c
}

// Prepared is a prepared statement: its text and the keyspace it was
// prepared in.
type Prepared struct {
	Query    string
	Keyspace string
}

// Sink receives each record; an error stops the decoder. The record and
// its slices are the sink's to keep.
type Sink func(*capture.Record) error

// Stats are a Decoder's counters.
type Stats struct {
	Packets       uint64            // packets given to the decoder
	Bytes         uint64            // TCP payload bytes of decoded connections
	NotTCP        map[string]uint64 // packets that are not TCP segments, by reason
	OtherPorts    uint64            // TCP segments of other connections
	Connections   uint64            // connections seen
	MidStream     uint64            // connections already open when the capture began
	Skipped       map[string]uint64 // connections not (or no longer) decoded, by reason
	OutOfOrder    uint64            // segments that arrived before earlier bytes
	Retransmitted uint64            // segments (or parts) seen twice
	Frames        uint64            // CQL frames decoded
	Requests      uint64            // QUERY, EXECUTE and BATCH requests answered
	Records       uint64            // records imported (batch children count one each)
	Unanswered    uint64            // requests without a response in the capture
	Unmatched     uint64            // responses to requests the capture did not hold
	Malformed     uint64            // frames that did not decode
	Unresolved    uint64            // records of EXECUTEs of unknown prepared ids, not imported
	Resolved      map[string]uint64 // EXECUTE ids resolved by source: "stream", "later", "first pass", "server"
}

// Total is the number of connections skipped, whatever the reason.
func (s *Stats) total(m map[string]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

// SkippedTotal is the number of connections skipped for any reason.
func (s *Stats) SkippedTotal() uint64 { return s.total(s.Skipped) }

// Reasons lists a reason map as "reason n, ..." (largest first).
func Reasons(m map[string]uint64) string {
	type kv struct {
		k string
		v uint64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	s := ""
	for i, e := range all {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", e.k, e.v)
	}
	return s
}

// connKey names a connection: client and server ends.
type connKey struct {
	client, server netip.AddrPort
}

// Decoder decodes captured TCP segments into records. It is not safe
// for concurrent use.
type Decoder struct {
	cfg      Config
	sink     Sink
	ports    map[uint16]bool
	conns    map[connKey]*conn
	nextID   uint64
	total    int // bytes held by all connections
	prepared map[string]Prepared
	held     map[string][]*capture.Record // records waiting for a PREPARE of their id
	nheld    int
	stats    Stats
	rc       reassemblyCounts
	finished bool
}

// NewDecoder returns a decoder that hands records to sink (nil: records
// are only counted, e.g. a first pass collecting prepared statements).
func NewDecoder(cfg Config, sink Sink) *Decoder {
	cfg = cfg.withDefaults()
	d := &Decoder{cfg: cfg, sink: sink, ports: map[uint16]bool{}, conns: map[connKey]*conn{},
		prepared: map[string]Prepared{}, held: map[string][]*capture.Record{}}
	for _, p := range cfg.Ports {
		d.ports[p] = true
	}
	d.stats.NotTCP, d.stats.Skipped, d.stats.Resolved = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	return d
}

// Stats returns a copy of the counters.
func (d *Decoder) Stats() Stats {
	s := d.stats
	s.OutOfOrder, s.Retransmitted = d.rc.outOfOrder, d.rc.retransmitted
	s.NotTCP, s.Skipped, s.Resolved = clone(s.NotTCP), clone(s.Skipped), clone(s.Resolved)
	return s
}

func clone(m map[string]uint64) map[string]uint64 {
	c := make(map[string]uint64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Prepared returns the prepared statements seen (PREPARE answered by a
// Prepared result), by id.
func (d *Decoder) Prepared() map[string]Prepared {
	out := make(map[string]Prepared, len(d.prepared))
	for k, v := range d.prepared {
		out[k] = v
	}
	return out
}

// Packet decodes one captured packet. Packets that are not TCP segments
// of a server port are counted and ignored; the error is the sink's.
func (d *Decoder) Packet(p pcap.Packet) error {
	d.stats.Packets++
	seg, err := pcap.DecodeTCP(p.Link, p.Data, p.OrigLen)
	if err != nil {
		d.stats.NotTCP[err.Error()]++
		return nil
	}
	return d.Segment(p.Time, &seg)
}

// Segment decodes one TCP segment captured at t.
func (d *Decoder) Segment(t time.Time, s *pcap.Segment) error {
	var key connKey
	fromClient := true
	switch {
	case d.ports[s.Dst.Port()]:
		key = connKey{client: s.Src, server: s.Dst}
	case d.ports[s.Src.Port()]:
		key, fromClient = connKey{client: s.Dst, server: s.Src}, false
	default:
		d.stats.OtherPorts++
		return nil
	}
	c := d.conns[key]
	if c != nil && fromClient && s.Flags&pcap.FlagSYN != 0 && s.Flags&pcap.FlagACK == 0 &&
		(c.state != stateActive || c.dirs[0].stream.started && c.dirs[0].stream.next != s.Seq+1) {
		// The 4-tuple was reused by a new connection.
		d.endConn(c)
		c = nil
	}
	if c == nil {
		if s.Flags&pcap.FlagRST != 0 || (s.Flags&pcap.FlagFIN != 0 && len(s.Payload) == 0) {
			return nil // the end of a connection the capture did not see
		}
		if len(d.conns) >= d.cfg.MaxConns {
			d.evictIdle()
		}
		d.nextID++
		c = newConn(d, key, d.nextID)
		d.conns[key] = c
		d.stats.Connections++
		if s.Flags&pcap.FlagSYN == 0 {
			c.midStream = true
			d.stats.MidStream++
		}
	}
	err := c.segment(t, fromClient, s)
	if c.state == stateDone || c.ended {
		d.endConn(c)
	}
	return err
}

// evictIdle forgets the connection that has been quiet longest, to make
// room in a full table (a long live capture outlives connections whose
// end it never saw); counted as skipped.
func (d *Decoder) evictIdle() {
	var oldest *conn
	for _, c := range d.conns {
		if oldest == nil || c.last.Before(oldest.last) || c.last.Equal(oldest.last) && c.id < oldest.id {
			oldest = c
		}
	}
	if oldest == nil {
		return
	}
	if oldest.state == stateActive {
		d.skip(oldest, "evicted: idle while the connection table was full")
	}
	d.endConn(oldest)
}

// skip counts a skipped connection (c may be nil: never tracked).
func (d *Decoder) skip(c *conn, reason string) {
	d.stats.Skipped[reason]++
	if c != nil {
		c.drop(reason)
	}
}

// endConn forgets a connection, counting what it left unanswered.
func (d *Decoder) endConn(c *conn) {
	if c.state != stateSkipped {
		c.finish()
	}
	d.total -= c.usage
	c.usage = 0
	delete(d.conns, c.key)
}

// Finish ends every connection, resolves the records still waiting for
// their prepared statement (Config.Resolve) and hands them to the sink.
func (d *Decoder) Finish(ctx context.Context) error {
	if d.finished {
		return nil
	}
	d.finished = true
	// Connections in id order: their last records leave in a stable order.
	open := make([]*conn, 0, len(d.conns))
	for _, c := range d.conns {
		open = append(open, c)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].id < open[j].id })
	var firstErr error
	for _, c := range open {
		d.endConn(c)
		if c.err != nil && firstErr == nil {
			firstErr = c.err
		}
	}
	if firstErr != nil {
		return firstErr
	}
	return d.resolveHeld(ctx)
}

// resolveHeld resolves held records through Config.Resolve; the rest are
// counted unresolved.
func (d *Decoder) resolveHeld(ctx context.Context) error {
	if len(d.held) == 0 {
		return nil
	}
	var found map[string]Prepared
	if d.cfg.Resolve != nil {
		ids := make([][]byte, 0, len(d.held))
		for id := range d.held {
			ids = append(ids, []byte(id))
		}
		var err error
		if found, err = d.cfg.Resolve(ctx, ids); err != nil {
			return fmt.Errorf("resolve prepared statements: %w", err)
		}
	}
	var recs []*capture.Record
	for id, rs := range d.held {
		p, ok := found[id]
		if !ok {
			d.stats.Unresolved += uint64(len(rs))
			continue
		}
		d.stats.Resolved["server"] += uint64(len(rs))
		for _, r := range rs {
			fill(r, p)
			recs = append(recs, r)
		}
	}
	d.held, d.nheld = nil, 0
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Time != recs[j].Time {
			return recs[i].Time < recs[j].Time
		}
		return recs[i].Session < recs[j].Session
	})
	for _, r := range recs {
		if err := d.emit(r); err != nil {
			return err
		}
	}
	return nil
}

// fill gives a record of an EXECUTE its prepared statement.
func fill(r *capture.Record, p Prepared) {
	r.Query = p.Query
	if p.Keyspace != "" {
		r.Keyspace = p.Keyspace
	}
}

// emit hands a record to the sink.
func (d *Decoder) emit(r *capture.Record) error {
	d.stats.Records++
	if d.sink == nil {
		return nil
	}
	if err := d.sink(r); err != nil {
		return fmt.Errorf("capture wire: %w", err)
	}
	return nil
}

// lookup finds a prepared statement by id; src says how it was known.
func (d *Decoder) lookup(id []byte) (Prepared, string, bool) {
	if p, ok := d.prepared[string(id)]; ok {
		return p, "stream", true
	}
	if p, ok := d.cfg.Prepared[string(id)]; ok {
		return p, "first pass", true
	}
	return Prepared{}, "", false
}

// prepare remembers a prepared statement and releases the records that
// waited for it.
func (d *Decoder) prepare(id []byte, p Prepared) error {
	if _, ok := d.prepared[string(id)]; !ok && len(d.prepared) >= d.cfg.MaxPrepared {
		return nil
	}
	d.prepared[string(id)] = p
	rs := d.held[string(id)]
	if len(rs) == 0 {
		return nil
	}
	delete(d.held, string(id))
	d.nheld -= len(rs)
	d.stats.Resolved["later"] += uint64(len(rs))
	for _, r := range rs {
		fill(r, p)
		if err := d.emit(r); err != nil {
			return err
		}
	}
	return nil
}

// hold keeps a record of an unknown prepared id until its PREPARE shows
// up (bounded: past MaxHeld it is counted unresolved).
func (d *Decoder) hold(id []byte, r *capture.Record) {
	if d.nheld >= d.cfg.MaxHeld {
		d.stats.Unresolved++
		return
	}
	d.held[string(id)] = append(d.held[string(id)], r)
	d.nheld++
}
