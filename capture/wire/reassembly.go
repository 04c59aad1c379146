package wire

// TCP reassembly of one direction of a connection.

// seqDiff is a - b in sequence space (wrapping).
func seqDiff(a, b uint32) int32 { return int32(a - b) }

// oooSegment is an out-of-order segment waiting for the bytes before it
// (its own copy of the data).
type oooSegment struct {
	seq  uint32
	data []byte
}

// halfStream reassembles one direction.
type halfStream struct {
	started bool   // next is known (a SYN or the first data seen)
	next    uint32 // sequence number of the next byte to deliver
	pending []oooSegment
	pbytes  int // bytes in pending
	finSeen bool
	fin     uint32 // sequence number of the FIN
	acked   uint32 // the peer's highest acknowledgement of this direction
	ackSeen bool
}

// reassemblyCounts are the reassembly events of a connection.
type reassemblyCounts struct {
	outOfOrder, retransmitted uint64
}

// syn starts the direction at a SYN's sequence number (the next byte is
// one after it).
func (h *halfStream) syn(seq uint32) {
	h.started, h.next = true, seq+1
	h.pending, h.pbytes = nil, 0
}

// add takes a segment's payload and returns the bytes now contiguous,
// in order (slices of data or of held copies; deliver before the next
// call).
func (h *halfStream) add(seq uint32, data []byte, cnt *reassemblyCounts) [][]byte {
	if len(data) == 0 {
		return nil
	}
	if !h.started { // mid-stream: the first data seen starts the stream
		h.started, h.next = true, seq
	}
	d := seqDiff(seq, h.next)
	if d < 0 {
		if int(-d) >= len(data) {
			cnt.retransmitted++
			return nil
		}
		cnt.retransmitted++ // partly new: keep the new bytes
		data, seq = data[-d:], h.next
		d = 0
	}
	if d > 0 {
		h.hold(seq, data, cnt)
		return nil
	}
	out := [][]byte{data}
	h.next += uint32(len(data))
	return h.drain(out, cnt)
}

// hold keeps an out-of-order segment (a copy), sorted by sequence.
func (h *halfStream) hold(seq uint32, data []byte, cnt *reassemblyCounts) {
	i := len(h.pending)
	for i > 0 && seqDiff(h.pending[i-1].seq, seq) > 0 {
		i--
	}
	if i > 0 && h.pending[i-1].seq == seq {
		cnt.retransmitted++
		if len(h.pending[i-1].data) >= len(data) {
			return
		}
		h.pbytes -= len(h.pending[i-1].data)
		h.pending[i-1].data = append([]byte(nil), data...)
		h.pbytes += len(data)
		return
	}
	cnt.outOfOrder++
	h.pending = append(h.pending, oooSegment{})
	copy(h.pending[i+1:], h.pending[i:])
	h.pending[i] = oooSegment{seq: seq, data: append([]byte(nil), data...)}
	h.pbytes += len(data)
}

// drain appends the held segments that became contiguous.
func (h *halfStream) drain(out [][]byte, cnt *reassemblyCounts) [][]byte {
	for len(h.pending) > 0 {
		s := h.pending[0]
		d := seqDiff(s.seq, h.next)
		if d > 0 {
			break
		}
		h.pending = h.pending[1:]
		h.pbytes -= len(s.data)
		if int(-d) >= len(s.data) {
			cnt.retransmitted++
			continue
		}
		if d < 0 {
			cnt.retransmitted++
		}
		s.data = s.data[-d:]
		out = append(out, s.data)
		h.next += uint32(len(s.data))
	}
	if len(h.pending) == 0 {
		h.pending = nil
	}
	return out
}

// ack records the peer's acknowledgement of this direction.
func (h *halfStream) ack(a uint32) {
	if !h.ackSeen || seqDiff(a, h.acked) > 0 {
		h.acked, h.ackSeen = a, true
	}
}

// hole tells whether bytes of this direction were lost for sure: the
// peer acknowledged (so received) up to a held segment whose preceding
// bytes the capture never saw.
func (h *halfStream) hole() bool {
	return len(h.pending) > 0 && h.ackSeen && seqDiff(h.acked, h.pending[0].seq) >= 0
}

// lostTail tells, at the end, whether the peer acknowledged bytes the
// capture never saw.
func (h *halfStream) lostTail() bool {
	if len(h.pending) > 0 {
		return true
	}
	if !h.started || !h.ackSeen {
		return false
	}
	end := h.next
	if h.finSeen && h.fin == h.next {
		end++ // the FIN takes a sequence number
	}
	return seqDiff(h.acked, end) > 0
}
