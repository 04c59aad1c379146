package wire

import (
	"fmt"
	"time"

	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/cql/wire"
)

type connState uint8

const (
	stateActive  connState = iota
	stateSkipped           // no longer decoded (a reason was counted)
	stateDone              // closed (FIN both ways, or RST)
)

// Directions.
const (
	toServer = 0
	toClient = 1
)

// syncWindow is how far into a connection that was open before the
// capture began a frame boundary is looked for.
const syncWindow = 64 << 10

// direction is one direction's reassembly and framing state.
type direction struct {
	stream   halfStream
	buf      []byte // reassembled bytes not yet decoded
	synced   bool   // buf starts at a frame (or segment) boundary
	framed   bool   // v5 segments
	segLZ4   bool   // ... in the LZ4 segment format
	envelope []byte // a large envelope assembled from non-self-contained segments
	// skipPartial drops non-self-contained segments until a
	// self-contained one: after a mid-stream start the first may
	// continue an envelope whose beginning was not captured.
	skipPartial bool
	scan        int // sync: where to resume looking for a boundary
}

// conn is one TCP connection: a session.
type conn struct {
	d         *Decoder
	key       connKey
	id        uint64
	state     connState
	midStream bool
	dirs      [2]direction

	version     byte // 0: not known yet
	compression string
	codec       wire.BodyCodec // v3/v4 frame-body compression
	started     bool           // STARTUP (or, mid-stream, the first frame) fixed the version

	keyspace string
	seq      uint64
	pending  map[int16]*request
	reqBytes int
	usage    int   // bytes held, as accounted in Decoder.total
	err      error // the sink's error
	last     time.Time
	fins     [2]bool // FIN seen each way (kept for skipped connections)
	ended    bool    // a skipped connection's end was seen
}

func newConn(d *Decoder, key connKey, id uint64) *conn {
	return &conn{d: d, key: key, id: id, pending: map[int16]*request{}}
}

// drop stops decoding the connection (the caller counted the reason).
func (c *conn) drop(string) {
	if c.state != stateActive {
		return
	}
	c.d.stats.Unanswered += uint64(len(c.pending))
	c.state = stateSkipped
	c.pending = nil
	for i := range c.dirs {
		c.dirs[i] = direction{}
	}
	c.reqBytes = 0
	c.account()
}

// fail counts reason and stops decoding the connection.
func (c *conn) fail(reason string) { c.d.skip(c, reason) }

// finish ends a connection at its close or at the end of the capture.
func (c *conn) finish() {
	if c.state == stateSkipped {
		return
	}
	for i := range c.dirs {
		h := &c.dirs[i]
		switch {
		case h.stream.lostTail():
			c.fail("lost segment (a gap in the stream)")
			return
		case len(h.buf) > 0 && !h.synced:
			c.fail("open before the capture: no CQL frame boundary found")
			return
		}
	}
	c.d.stats.Unanswered += uint64(len(c.pending))
	c.pending = nil
	c.state = stateDone
}

// segment takes one TCP segment of the connection.
func (c *conn) segment(t time.Time, fromClient bool, s *pcap.Segment) error {
	dir := toServer
	if !fromClient {
		dir = toClient
	}
	c.last = t
	if s.Flags&pcap.FlagFIN != 0 {
		c.fins[dir] = true
	}
	if c.state != stateActive {
		// A skipped connection is forgotten at its end.
		c.ended = s.Flags&pcap.FlagRST != 0 || c.fins[0] && c.fins[1]
		return nil
	}
	h, peer := &c.dirs[dir], &c.dirs[1-dir]
	if s.Flags&pcap.FlagACK != 0 {
		peer.stream.ack(s.Ack)
	}
	seq := s.Seq
	if s.Flags&pcap.FlagSYN != 0 {
		h.stream.syn(s.Seq)
		seq++
	}
	if s.Missing > 0 {
		c.fail("packets cut by the snapshot length (capture with tcpdump -s 0)")
		return nil
	}
	if len(s.Payload) > 0 {
		c.d.stats.Bytes += uint64(len(s.Payload))
		for _, chunk := range h.stream.add(seq, s.Payload, &c.d.rc) {
			if err := c.feed(t, dir, chunk); err != nil {
				c.err = err
				c.fail("import stopped")
				return err
			}
			if c.state != stateActive {
				return nil
			}
		}
	}
	if s.Flags&pcap.FlagFIN != 0 {
		h.stream.finSeen, h.stream.fin = true, seq+uint32(len(s.Payload))
	}
	if c.dirs[toServer].stream.hole() || c.dirs[toClient].stream.hole() {
		c.fail("lost segment (a gap in the stream)")
		return nil
	}
	if !c.account() {
		return nil
	}
	if s.Flags&pcap.FlagRST != 0 || (c.closed(toServer) && c.closed(toClient)) {
		c.finish()
	}
	return nil
}

// closed tells whether a direction delivered everything up to its FIN.
func (c *conn) closed(dir int) bool {
	s := &c.dirs[dir].stream
	return s.finSeen && s.next == s.fin
}

// account updates the bytes the connection holds and enforces the caps;
// false when the connection was dropped.
func (c *conn) account() bool {
	n := c.reqBytes
	for i := range c.dirs {
		h := &c.dirs[i]
		n += cap(h.buf) + h.stream.pbytes + len(h.envelope)
	}
	c.d.total += n - c.usage
	c.usage = n
	if c.state != stateActive {
		return false
	}
	switch {
	case n > c.d.cfg.MaxConnBytes:
		c.fail("per-connection memory cap")
		return false
	case c.d.total > c.d.cfg.MaxTotalBytes:
		c.fail("total memory cap")
		return false
	}
	return true
}

// feed appends reassembled bytes to a direction and decodes what is
// complete.
func (c *conn) feed(t time.Time, dir int, data []byte) error {
	h := &c.dirs[dir]
	h.buf = append(h.buf, data...)
	base := h.buf
	for c.state == stateActive {
		n, err := c.next(t, dir)
		if err != nil {
			return err
		}
		if n == 0 || c.state != stateActive {
			break
		}
		h.buf = h.buf[n:]
	}
	if c.state != stateActive {
		return nil
	}
	// Move the undecoded tail to the front; give back a large buffer
	// once it is mostly empty.
	if len(h.buf) < len(base) {
		if cap(base) > 256<<10 && len(h.buf) < cap(base)/4 {
			h.buf = append([]byte(nil), h.buf...)
		} else {
			h.buf = base[:copy(base, h.buf)]
		}
	}
	if len(h.buf) > c.d.cfg.MaxFrame+syncWindow {
		c.fail("frame larger than the frame limit")
	}
	return nil
}

// next decodes one frame (or v5 segment) at the start of the direction's
// buffer and returns the bytes it took; 0 when more bytes are needed or
// the connection was dropped.
func (c *conn) next(t time.Time, dir int) (int, error) {
	h := &c.dirs[dir]
	if !h.synced {
		off, ok := c.sync(dir)
		if !ok {
			return 0, nil
		}
		if off > 0 {
			return off, nil // skip to the boundary
		}
	}
	if h.framed {
		return c.nextSegment(t, dir)
	}
	if len(h.buf) < wire.HeaderLen {
		return 0, nil
	}
	hd := wire.ParseHeader(h.buf)
	if reason := c.checkHeader(dir, hd); reason != "" {
		c.fail(reason)
		return 0, nil
	}
	end := wire.HeaderLen + int(hd.Length)
	if len(h.buf) < end {
		return 0, nil
	}
	body := append([]byte(nil), h.buf[wire.HeaderLen:end]...)
	if hd.Flags&wire.FlagCompressed != 0 && hd.Version < 5 {
		var ok bool
		if body, ok = c.decompress(body); !ok {
			c.d.stats.Malformed++
			return end, nil
		}
	}
	if err := c.frame(t, dir, hd, body); err != nil {
		return 0, err
	}
	if hd.Version == 5 && c.state == stateActive {
		// v5 framing starts after STARTUP one way and after READY or
		// AUTHENTICATE the other (native_protocol_v5.spec §2.2).
		if dir == toServer && hd.Op == wire.OpStartup ||
			dir == toClient && (hd.Op == wire.OpReady || hd.Op == wire.OpAuthenticate) {
			h.framed, h.segLZ4 = true, c.compression == "lz4"
		}
	}
	return end, nil
}

// nextSegment decodes one v5 segment and the envelopes it completes.
func (c *conn) nextSegment(t time.Time, dir int) (int, error) {
	h := &c.dirs[dir]
	payload, self, n, err := wire.ParseSegment(h.buf, h.segLZ4)
	if err != nil {
		c.fail("malformed v5 segment: " + trimMsg(err.Error()))
		return 0, nil
	}
	if n == 0 {
		return 0, nil
	}
	if !self {
		if h.skipPartial {
			return n, nil
		}
		h.envelope = append(h.envelope, payload...)
		if len(h.envelope) < wire.HeaderLen {
			return n, nil
		}
		hd := wire.ParseHeader(h.envelope)
		if reason := c.checkHeader(dir, hd); reason != "" {
			c.fail(reason)
			return 0, nil
		}
		end := wire.HeaderLen + int(hd.Length)
		switch {
		case len(h.envelope) < end:
			return n, nil
		case len(h.envelope) > end:
			c.fail("malformed v5 segment: a large envelope with trailing bytes")
			return 0, nil
		}
		env := h.envelope
		h.envelope = nil
		return n, c.frame(t, dir, hd, env[wire.HeaderLen:])
	}
	h.skipPartial = false
	if h.envelope != nil {
		c.fail("malformed v5 segment: self-contained segment inside a large envelope")
		return 0, nil
	}
	for len(payload) > 0 && c.state == stateActive {
		if len(payload) < wire.HeaderLen {
			c.fail("malformed v5 segment: ends inside an envelope header")
			return 0, nil
		}
		hd := wire.ParseHeader(payload)
		if reason := c.checkHeader(dir, hd); reason != "" {
			c.fail(reason)
			return 0, nil
		}
		end := wire.HeaderLen + int(hd.Length)
		if end > len(payload) {
			c.fail("malformed v5 segment: ends inside an envelope body")
			return 0, nil
		}
		body := append([]byte(nil), payload[wire.HeaderLen:end]...)
		payload = payload[end:]
		if err := c.frame(t, dir, hd, body); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Opcodes by direction.
var (
	requestOps = map[byte]bool{wire.OpStartup: true, wire.OpOptions: true, wire.OpQuery: true,
		wire.OpPrepare: true, wire.OpExecute: true, wire.OpRegister: true, wire.OpBatch: true,
		wire.OpAuthResponse: true}
	responseOps = map[byte]bool{wire.OpError: true, wire.OpReady: true, wire.OpAuthenticate: true,
		wire.OpSupported: true, wire.OpResult: true, wire.OpEvent: true, wire.OpAuthChallenge: true,
		wire.OpAuthSuccess: true}
)

// checkHeader returns why a frame header cannot be one of this
// connection's ("" if it can).
func (c *conn) checkHeader(dir int, hd wire.Header) string {
	reason := headerProblem(dir, hd, c.d.cfg.MaxFrame)
	if reason == "" && c.started && hd.Version != c.version {
		reason = fmt.Sprintf("protocol version changed from %d to %d", c.version, hd.Version)
	}
	return reason
}

// headerProblem checks a frame header in isolation.
func headerProblem(dir int, hd wire.Header, maxFrame int) string {
	if !wire.SupportedVersion(hd.Version) {
		if hd.Version == 0 || hd.Version > 6 {
			return "not CQL (garbage on the server port)"
		}
		return fmt.Sprintf("unsupported protocol version %d", hd.Version)
	}
	if hd.Response != (dir == toClient) {
		return "not CQL (garbage on the server port)"
	}
	ops := requestOps
	if dir == toClient {
		ops = responseOps
	}
	if !ops[hd.Op] || hd.Flags > 0x1F {
		return "not CQL (garbage on the server port)"
	}
	if hd.Length < 0 || int(hd.Length) > maxFrame {
		return "frame larger than the frame limit"
	}
	return ""
}

// decompress decodes a v3/v4 compressed body; mid-stream, the codec is
// guessed from the first compressed frame.
func (c *conn) decompress(body []byte) ([]byte, bool) {
	if c.codec == nil {
		if !c.midStream {
			return nil, false
		}
		for _, name := range []string{"lz4", "snappy"} {
			codec, _ := wire.BodyCodecFor(name)
			if out, err := codec.Decompress(body, c.d.cfg.MaxFrame); err == nil {
				c.codec, c.compression = codec, name
				return out, true
			}
		}
		return nil, false
	}
	out, err := c.codec.Decompress(body, c.d.cfg.MaxFrame)
	return out, err == nil
}

// isTLS tells whether b starts with a TLS record header (handshake,
// alert or application data of TLS 1.0-1.3).
func isTLS(b []byte) bool {
	return len(b) >= 3 && b[0] >= 0x15 && b[0] <= 0x17 && b[1] == 3 && b[2] <= 4
}

func trimMsg(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}
