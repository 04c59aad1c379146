package cql

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// UUID is a 16-byte RFC 4122 UUID as CQL serializes uuid and timeuuid.
type UUID [16]byte

// ParseUUID parses the canonical 8-4-4-4-12 hex form (any case), the only
// form CQL accepts.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, valueErrf("Unable to make UUID from '%s'", s)
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := hexVal(s[i])
		lo, ok2 := hexVal(s[i+1])
		if !ok1 || !ok2 {
			return UUID{}, valueErrf("Unable to make UUID from '%s'", s)
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// String returns the lower-case 8-4-4-4-12 form.
func (u UUID) String() string {
	var buf [36]byte
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], u[10:])
	return string(buf[:])
}

// Version returns the UUID version (1 for time-based UUIDs).
func (u UUID) Version() int { return int(u[6] >> 4) }

// uuidEpochOffset is the number of 100ns ticks between the UUID epoch
// (1582-10-15) and the Unix epoch.
const uuidEpochOffset = 0x01B21DD213814000

const maxUUIDTicks = 1<<60 - 1

// uuidTicks converts t to 100ns ticks since the UUID epoch, clamped to the
// 60 bits a time UUID holds.
func uuidTicks(t time.Time) int64 {
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	const minSec = -uuidEpochOffset / 10_000_000
	const maxSec = (maxUUIDTicks - uuidEpochOffset) / 10_000_000
	switch {
	case sec < minSec:
		return 0
	case sec > maxSec:
		return maxUUIDTicks
	}
	ticks := sec*1e7 + nsec/100 + uuidEpochOffset
	if ticks < 0 {
		return 0
	}
	if ticks > maxUUIDTicks {
		return maxUUIDTicks
	}
	return ticks
}

// timeUUIDFrom builds a version 1 UUID from ticks and the 8 low bytes.
func timeUUIDFrom(ticks int64, lsb uint64) UUID {
	var u UUID
	binary.BigEndian.PutUint32(u[0:], uint32(ticks))
	binary.BigEndian.PutUint16(u[4:], uint16(ticks>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ticks>>48)&0x0FFF|0x1000)
	binary.BigEndian.PutUint64(u[8:], lsb)
	return u
}

// NewTimeUUID returns the version 1 UUID for time t (100ns precision), clock
// sequence clockSeq (14 bits used) and node.
func NewTimeUUID(t time.Time, clockSeq uint16, node [6]byte) UUID {
	lsb := uint64(clockSeq&0x3FFF|0x8000) << 48
	for i, b := range node {
		lsb |= uint64(b) << (8 * (5 - i))
	}
	return timeUUIDFrom(uuidTicks(t), lsb)
}

// TimeUUIDTime returns the time stored in a version 1 UUID (in UTC). For
// other versions the result is meaningless.
func TimeUUIDTime(u UUID) time.Time {
	ticks := int64(binary.BigEndian.Uint16(u[6:])&0x0FFF)<<48 |
		int64(binary.BigEndian.Uint16(u[4:]))<<32 |
		int64(binary.BigEndian.Uint32(u[0:]))
	ticks -= uuidEpochOffset
	return time.Unix(ticks/1e7, (ticks%1e7)*100).UTC()
}

// MinTimeUUID and MaxTimeUUID are the smallest and greatest timeuuids (in
// Cassandra's timeuuid order) for the millisecond of t, as CQL's
// minTimeuuid() and maxTimeuuid() return them.
func MinTimeUUID(t time.Time) UUID {
	return timeUUIDFrom(msTicks(t.UnixMilli()), 0x8080808080808080)
}

// MaxTimeUUID: see MinTimeUUID.
func MaxTimeUUID(t time.Time) UUID {
	ms := t.UnixMilli()
	return timeUUIDFrom(msTicks(ms)+9999, 0x7F7F7F7F7F7F7F7F)
}

func msTicks(ms int64) int64 {
	const minMs = -uuidEpochOffset / 10000
	const maxMs = (maxUUIDTicks-uuidEpochOffset)/10000 - 1
	switch {
	case ms < minMs:
		ms = minMs
	case ms > maxMs:
		ms = maxMs
	}
	return ms*10000 + uuidEpochOffset
}

// RandomUUID returns a version 4 UUID from crypto/rand.
func RandomUUID() UUID {
	var u UUID
	_, _ = rand.Read(u[:]) // never fails since Go 1.24
	u[6] = u[6]&0x0F | 0x40
	u[8] = u[8]&0x3F | 0x80
	return u
}

// TimeUUIDGenerator makes strictly increasing version 1 UUIDs from an
// injectable clock, with a random clock sequence and node (multicast bit
// set, as RFC 4122 asks for random nodes). Safe for concurrent use.
type TimeUUIDGenerator struct {
	now      func() time.Time
	mu       sync.Mutex
	last     int64
	clockSeq uint16
	node     [6]byte
}

// NewTimeUUIDGenerator returns a generator reading time from now (time.Now
// when nil).
func NewTimeUUIDGenerator(now func() time.Time) *TimeUUIDGenerator {
	if now == nil {
		now = time.Now
	}
	g := &TimeUUIDGenerator{now: now}
	var r [8]byte
	_, _ = rand.Read(r[:])
	g.clockSeq = binary.BigEndian.Uint16(r[:2]) & 0x3FFF
	copy(g.node[:], r[2:])
	g.node[0] |= 0x01
	return g
}

// Next returns a new time UUID. When the clock has not advanced (or went
// back), the previous timestamp plus one tick is used, so results from one
// generator never repeat and sort in call order.
func (g *TimeUUIDGenerator) Next() UUID {
	t := g.now()
	g.mu.Lock()
	ticks := uuidTicks(t)
	if ticks <= g.last && g.last < maxUUIDTicks {
		ticks = g.last + 1
	}
	g.last = ticks
	g.mu.Unlock()
	lsb := uint64(g.clockSeq|0x8000) << 48
	for i, b := range g.node {
		lsb |= uint64(b) << (8 * (5 - i))
	}
	return timeUUIDFrom(ticks, lsb)
}
