package wire

import "github.com/dohyo/dohyo/cql/wire"

// Finding the framing of a connection that was open before the capture
// began: its first captured bytes may start a v3/v4 frame, a v5 segment,
// or fall inside either.

// verdict is what the bytes at an offset say about a boundary there.
type verdict uint8

const (
	no verdict = iota
	maybe
	yes
)

// sync finds the first frame boundary of a direction. It returns the
// bytes to skip before it and true once found; false while more bytes
// are needed (or the connection was dropped).
func (c *conn) sync(dir int) (int, bool) {
	h := &c.dirs[dir]
	b := h.buf
	if len(b) < 3 {
		return 0, false
	}
	if isTLS(b) {
		c.fail("TLS (encrypted: not decodable)")
		return 0, false
	}
	if !c.midStream {
		h.synced = true // a new connection starts with a frame
		return 0, true
	}
	other := &c.dirs[1-dir]
	limit := min(len(b), syncWindow)
	// Offsets before h.scan were ruled out by earlier calls: a verdict
	// of no never changes as bytes arrive, so scanning resumes there.
	for off := h.scan; off < limit; off++ {
		waiting := false
		if !other.synced || !other.framed {
			switch c.frameAt(dir, b, off) {
			case yes:
				hd := wire.ParseHeader(b[off:])
				h.synced = true
				if !c.started {
					c.version, c.started = hd.Version, true
				}
				return off, true
			case maybe:
				waiting = true
			}
		}
		if !other.synced || other.framed {
			for _, lz4 := range []bool{false, true} {
				if other.synced && other.segLZ4 != lz4 {
					continue
				}
				switch segmentAt(b, off, lz4) {
				case yes:
					h.synced, h.framed, h.segLZ4, h.skipPartial = true, true, lz4, true
					c.version, c.started = 5, true
					if lz4 {
						c.compression = "lz4"
					}
					return off, true
				case maybe:
					waiting = true
				}
			}
		}
		if waiting {
			h.scan = off
			return 0, false
		}
	}
	h.scan = limit
	if len(b) >= syncWindow {
		c.fail("open before the capture: no CQL frame boundary found")
	}
	return 0, false
}

// frameAt judges a v3/v4 frame header at b[off:]: at the first byte a
// valid header suffices; further in, the frame must end at the end of
// the bytes or be followed by another valid header.
func (c *conn) frameAt(dir int, b []byte, off int) verdict {
	if len(b)-off < wire.HeaderLen {
		if len(b)-off < 5 || headerPrefixOK(dir, b[off:]) {
			return maybe
		}
		return no
	}
	hd := wire.ParseHeader(b[off:])
	if headerProblem(dir, hd, c.d.cfg.MaxFrame) != "" || c.started && hd.Version != c.version {
		return no
	}
	if off == 0 {
		return yes
	}
	end := off + wire.HeaderLen + int(hd.Length)
	switch {
	case end == len(b):
		return yes
	case end+wire.HeaderLen <= len(b):
		if headerProblem(dir, wire.ParseHeader(b[end:]), c.d.cfg.MaxFrame) != "" {
			return no
		}
		return yes
	}
	return maybe
}

// headerPrefixOK checks the version, flags and opcode of a partial
// header.
func headerPrefixOK(dir int, b []byte) bool {
	hd := wire.Header{Response: b[0]&wire.ResponseBit != 0, Version: b[0] & wire.VersionMask, Flags: b[1], Op: b[4]}
	return headerProblem(dir, hd, 1<<31-1) == ""
}

// segmentAt judges a v5 segment header at b[off:]: its CRC24 decides.
func segmentAt(b []byte, off int, lz4 bool) verdict {
	if len(b)-off < wire.SegmentHeaderLen(lz4) {
		return maybe
	}
	_, _, _, err := wire.ParseSegment(b[off:], lz4)
	if err != nil {
		return no
	}
	return yes
}
