package pcap

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"time"
)

// LinkType is a link-layer header type (LINKTYPE_* of tcpdump.org).
type LinkType uint32

// Link types the decoder understands.
const (
	LinkNull     LinkType = 0   // BSD loopback: 4-byte address family, host order
	LinkEthernet LinkType = 1   // Ethernet II (tcpdump -i lo on Linux)
	LinkRaw      LinkType = 101 // raw IPv4 or IPv6
	LinkLoop     LinkType = 108 // OpenBSD loopback: family in network order
	LinkSLL      LinkType = 113 // Linux cooked capture (tcpdump -i any)
	LinkIPv4     LinkType = 228
	LinkIPv6     LinkType = 229
	LinkSLL2     LinkType = 276 // Linux cooked capture v2
)

// Limits on what a file may declare.
const (
	// MaxPacket is the largest captured packet accepted (tcpdump's
	// largest snapshot length).
	MaxPacket = 256 << 10
	// maxBlock bounds a pcapng block (a packet plus its options).
	maxBlock = MaxPacket + 64<<10
	// maxInterfaces bounds the interfaces of a pcapng section.
	maxInterfaces = 1 << 10
)

// ErrTruncated is returned (wrapped, with the offset) when a file ends
// inside a header or a packet: a capture cut short, typically because
// tcpdump was killed. Packets before it were returned.
var ErrTruncated = errors.New("pcap: file ends inside a packet (truncated capture)")

// FormatError is a malformed file: what is wrong and at which byte.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("pcap: malformed capture at offset %d: %s", e.Offset, e.Msg)
}

// Packet is one captured packet. Data is valid until the next call to
// Next.
type Packet struct {
	Time      time.Time
	Link      LinkType
	Data      []byte // the captured bytes
	OrigLen   int    // the packet's length on the wire (> len(Data) when cut by the snapshot length)
	Interface int    // pcapng interface index (0 for pcap)
}

// Source is anything that yields packets: a file Reader or a Live socket.
type Source interface {
	// Next returns the next packet, io.EOF at the end.
	Next() (Packet, error)
}

type format uint8

const (
	formatPcap format = iota + 1
	formatPcapNG
)

// iface is a pcapng interface: its link type and timestamp units.
type iface struct {
	link    LinkType
	snaplen uint32
	units   uint64 // timestamp units per second
	offset  int64  // if_tsoffset, seconds
}

// Reader reads a pcap or pcapng file.
type Reader struct {
	r      *bufio.Reader
	off    int64 // offset of the next unread byte
	format format
	order  binary.ByteOrder

	// pcap
	link  LinkType
	nano  bool
	snap  uint32
	ifs   []iface // pcapng, the current section's
	last  time.Time
	buf   []byte
	hdr   [32]byte
	count uint64
}

var _ Source = (*Reader)(nil)

// Magic numbers.
const (
	magicMicro   uint32 = 0xa1b2c3d4
	magicNano    uint32 = 0xa1b23c4d
	blockSHB     uint32 = 0x0A0D0D0A
	byteOrderBOM uint32 = 0x1A2B3C4D
)

// NewReader reads the file header and returns a reader positioned at the
// first packet. The format is detected from the magic number.
func NewReader(r io.Reader) (*Reader, error) {
	pr := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	magic, err := pr.r.Peek(4)
	if err != nil {
		if len(magic) == 0 && errors.Is(err, io.EOF) {
			return nil, errors.New("pcap: empty file")
		}
		return nil, fmt.Errorf("%w (file of %d bytes)", ErrTruncated, len(magic))
	}
	switch {
	case binary.LittleEndian.Uint32(magic) == blockSHB:
		pr.format = formatPcapNG
		if err := pr.readSHB(true); err != nil {
			return nil, err
		}
		return pr, nil
	default:
		if !pcapMagic(magic) {
			return nil, pr.fail(0, "not a pcap or pcapng file (magic %08x)", binary.BigEndian.Uint32(magic))
		}
		if err := pr.readPcapHeader(); err != nil {
			return nil, err
		}
		return pr, nil
	}
}

// pcapMagic tells whether b starts with a classic pcap magic number.
func pcapMagic(b []byte) bool {
	for _, m := range []uint32{binary.LittleEndian.Uint32(b), binary.BigEndian.Uint32(b)} {
		if m == magicMicro || m == magicNano {
			return true
		}
	}
	return false
}

// Packets is the number of packets returned so far.
func (r *Reader) Packets() uint64 { return r.count }

// Offset is the number of file bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// read fills b from the file; a short read is ErrTruncated.
func (r *Reader) read(b []byte) error {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w at offset %d", ErrTruncated, r.off)
	}
	return err // io.EOF: nothing read
}

// payload returns a buffer of n bytes read from the file (reused).
func (r *Reader) payload(n int) ([]byte, error) {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if err := r.read(b); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w at offset %d", ErrTruncated, r.off)
		}
		return nil, err
	}
	return b, nil
}

func (r *Reader) fail(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) readPcapHeader() error {
	h := r.hdr[:24]
	if err := r.read(h); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w in the file header", ErrTruncated)
		}
		return err
	}
	switch {
	case binary.LittleEndian.Uint32(h) == magicMicro:
		r.order = binary.LittleEndian
	case binary.BigEndian.Uint32(h) == magicMicro:
		r.order = binary.BigEndian
	case binary.LittleEndian.Uint32(h) == magicNano:
		r.order, r.nano = binary.LittleEndian, true
	case binary.BigEndian.Uint32(h) == magicNano:
		r.order, r.nano = binary.BigEndian, true
	default:
		return r.fail(0, "not a pcap or pcapng file (magic %08x)", binary.BigEndian.Uint32(h))
	}
	if major := r.order.Uint16(h[4:]); major != 2 {
		return r.fail(4, "unsupported pcap version %d.%d", major, r.order.Uint16(h[6:]))
	}
	r.format = formatPcap
	r.snap = r.order.Uint32(h[16:])
	// The upper bits of the link type field carry FCS information.
	r.link = LinkType(r.order.Uint32(h[20:]) & 0x0FFFFFFF)
	return nil
}

// Next returns the next packet; io.EOF at a clean end.
func (r *Reader) Next() (Packet, error) {
	var p Packet
	var err error
	if r.format == formatPcap {
		p, err = r.nextPcap()
	} else {
		p, err = r.nextPcapNG()
	}
	if err == nil {
		r.count++
		r.last = p.Time
	}
	return p, err
}

func (r *Reader) nextPcap() (Packet, error) {
	start := r.off
	h := r.hdr[:16]
	if err := r.read(h); err != nil {
		return Packet{}, err
	}
	sec, frac := r.order.Uint32(h), r.order.Uint32(h[4:])
	incl, orig := r.order.Uint32(h[8:]), r.order.Uint32(h[12:])
	if incl > MaxPacket {
		return Packet{}, r.fail(start, "packet of %d captured bytes (limit %d)", incl, MaxPacket)
	}
	if r.nano {
		if frac >= 1e9 {
			return Packet{}, r.fail(start, "nanoseconds field %d out of range", frac)
		}
	} else if frac >= 1e6 {
		return Packet{}, r.fail(start, "microseconds field %d out of range", frac)
	} else {
		frac *= 1000
	}
	data, err := r.payload(int(incl))
	if err != nil {
		return Packet{}, err
	}
	return Packet{Time: time.Unix(int64(sec), int64(frac)), Link: r.link, Data: data, OrigLen: int(max(orig, incl))}, nil
}

// Pcapng block types.
const (
	blockIDB = 1
	blockPB  = 2 // obsolete packet block
	blockSPB = 3
	blockEPB = 6
)

// readBlock reads a pcapng block: its type and body (without the type,
// the lengths at both ends).
func (r *Reader) readBlock() (typ uint32, body []byte, start int64, err error) {
	start = r.off
	h := r.hdr[:8]
	if err := r.read(h); err != nil {
		return 0, nil, start, err
	}
	typ = r.order.Uint32(h)
	if typ == blockSHB {
		return typ, nil, start, nil // the caller re-reads the section header
	}
	n := r.order.Uint32(h[4:])
	if n < 12 || n%4 != 0 || n > maxBlock {
		return 0, nil, start, r.fail(start, "block of type %#x has invalid length %d", typ, n)
	}
	rest, err := r.payload(int(n) - 8)
	if err != nil {
		return 0, nil, start, err
	}
	if r.order.Uint32(rest[len(rest)-4:]) != n {
		return 0, nil, start, r.fail(start, "block of type %#x: trailing length %d differs from leading %d", typ, r.order.Uint32(rest[len(rest)-4:]), n)
	}
	return typ, rest[:len(rest)-4], start, nil
}

// readSHB reads a section header block; its first 8 bytes (type and
// length) are in r.hdr[:8] already when read is false.
func (r *Reader) readSHB(read bool) error {
	start := r.off - 8
	if read {
		start = r.off
		if err := r.read(r.hdr[:8]); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%w in a section header", ErrTruncated)
			}
			return err
		}
	}
	if err := r.read(r.hdr[8:12]); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w in a section header", ErrTruncated)
		}
		return err
	}
	h := r.hdr[:12]
	switch byteOrderBOM {
	case binary.LittleEndian.Uint32(h[8:]):
		r.order = binary.LittleEndian
	case binary.BigEndian.Uint32(h[8:]):
		r.order = binary.BigEndian
	default:
		return r.fail(start, "section header has no byte-order magic")
	}
	n := r.order.Uint32(h[4:])
	if n < 28 || n%4 != 0 || n > maxBlock {
		return r.fail(start, "section header has invalid length %d", n)
	}
	rest, err := r.payload(int(n) - 12)
	if err != nil {
		return err
	}
	if major := r.order.Uint16(rest); major != 1 {
		return r.fail(start, "unsupported pcapng version %d", major)
	}
	if r.order.Uint32(rest[len(rest)-4:]) != n {
		return r.fail(start, "section header: trailing length %d differs from leading %d", r.order.Uint32(rest[len(rest)-4:]), n)
	}
	r.ifs = r.ifs[:0]
	return nil
}

func (r *Reader) nextPcapNG() (Packet, error) {
	for {
		typ, body, start, err := r.readBlock()
		if err != nil {
			return Packet{}, err
		}
		switch typ {
		case blockSHB:
			if err := r.readSHB(false); err != nil {
				return Packet{}, err
			}
		case blockIDB:
			if err := r.readIDB(body, start); err != nil {
				return Packet{}, err
			}
		case blockEPB, blockPB:
			return r.packetBlock(typ, body, start)
		case blockSPB:
			return r.simplePacket(body, start)
		}
		// Other blocks (name resolution, statistics, custom) are skipped.
	}
}

func (r *Reader) readIDB(body []byte, start int64) error {
	if len(body) < 8 {
		return r.fail(start, "interface description of %d bytes", len(body))
	}
	if len(r.ifs) >= maxInterfaces {
		return r.fail(start, "more than %d interfaces", maxInterfaces)
	}
	in := iface{link: LinkType(r.order.Uint16(body)), snaplen: r.order.Uint32(body[4:]), units: 1e6}
	opts := body[8:]
	for len(opts) >= 4 {
		code, n := r.order.Uint16(opts), int(r.order.Uint16(opts[2:]))
		if code == 0 {
			break
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(opts) {
			return r.fail(start, "interface option %d overruns its block", code)
		}
		v := opts[4 : 4+n]
		switch {
		case code == 9 && n >= 1: // if_tsresol
			units, ok := tsUnits(v[0])
			if !ok {
				return r.fail(start, "unsupported timestamp resolution %#x", v[0])
			}
			in.units = units
		case code == 14 && n >= 8: // if_tsoffset
			in.offset = int64(r.order.Uint64(v))
		}
		opts = opts[4+padded:]
	}
	r.ifs = append(r.ifs, in)
	return nil
}

// tsUnits converts an if_tsresol byte to units per second: 10^v, or 2^v
// with the top bit set.
func tsUnits(b byte) (uint64, bool) {
	if b&0x80 != 0 {
		e := b & 0x7F
		if e > 63 {
			return 0, false
		}
		return 1 << e, true
	}
	if b > 19 {
		return 0, false
	}
	u := uint64(1)
	for range b {
		u *= 10
	}
	return u, true
}

// timestamp converts a pcapng timestamp in units of in.
func (in iface) timestamp(ts uint64) time.Time {
	sec := ts / in.units
	frac := ts % in.units
	hi, lo := bits.Mul64(frac, 1e9)
	ns, _ := bits.Div64(hi, lo, in.units) // frac < units: the quotient fits
	return time.Unix(int64(sec)+in.offset, int64(ns))
}

func (r *Reader) packetBlock(typ uint32, body []byte, start int64) (Packet, error) {
	if len(body) < 20 {
		return Packet{}, r.fail(start, "packet block of %d bytes", len(body))
	}
	var id int
	if typ == blockPB {
		id = int(r.order.Uint16(body))
	} else {
		id = int(r.order.Uint32(body))
	}
	if id >= len(r.ifs) {
		return Packet{}, r.fail(start, "packet of undeclared interface %d", id)
	}
	in := r.ifs[id]
	ts := uint64(r.order.Uint32(body[4:]))<<32 | uint64(r.order.Uint32(body[8:]))
	caplen, orig := r.order.Uint32(body[12:]), r.order.Uint32(body[16:])
	if uint64(caplen) > uint64(len(body)-20) {
		return Packet{}, r.fail(start, "packet of %d captured bytes in a block of %d", caplen, len(body))
	}
	return Packet{Time: in.timestamp(ts), Link: in.link, Data: body[20 : 20+caplen],
		OrigLen: int(max(orig, caplen)), Interface: id}, nil
}

// simplePacket reads a simple packet block: interface 0, no timestamp
// (the previous packet's time is used).
func (r *Reader) simplePacket(body []byte, start int64) (Packet, error) {
	if len(r.ifs) == 0 {
		return Packet{}, r.fail(start, "simple packet before any interface description")
	}
	if len(body) < 4 {
		return Packet{}, r.fail(start, "simple packet block of %d bytes", len(body))
	}
	orig := r.order.Uint32(body)
	n := min(uint64(orig), uint64(len(body)-4))
	if s := r.ifs[0].snaplen; s > 0 {
		n = min(n, uint64(s))
	}
	return Packet{Time: r.last, Link: r.ifs[0].link, Data: body[4 : 4+n], OrigLen: int(max(uint64(orig), n))}, nil
}
