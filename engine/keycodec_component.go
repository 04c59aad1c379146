package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Clustering components (and the elements of frozen collections, tuples and
// UDTs inside them) are a marker byte followed by a self-delimiting payload.
// A component's bytes are canonical: values Cassandra's comparator calls
// equal encode identically (decimal 1.0 and 1.00, varint 0x01 and 0x0001,
// booleans 0x01 and 0x02, NaNs, a tuple with and without trailing nulls),
// and bytewise order is the comparator's order. What tells such values
// apart is kept as "tie" items in a separate stream that the row key carries
// after its last component (see keycodec.go), so ties never decide the order
// before a later column does, and keys still decode to the exact
// CQL-serialized bytes. Tie items and their defaults:
//
//	boolean       the raw byte (default: 0x00 / 0x01)
//	float/double  NaN only: the raw bits (default: Java's canonical NaN)
//	varint        count of redundant leading bytes (default 0)
//	decimal       non-zero: trailing decimal zeros of the unscaled value, zero:
//	              the scale; then the varint padding (defaults 0)
//	tuple/UDT     count of trailing nulls (default 0)
//
// Markers stay in [0x02, 0x06], so complemented (DESC) markers stay in
// [0xF9, 0xFD]: neither ever collides with the key terminator 0x00, the tie
// marker 0x01 or the bound byte 0xFF.
const (
	mNull   byte = 0x02 // a null tuple/UDT component
	mEmpty  byte = 0x03 // a zero-length value: sorts first, as in Cassandra
	mValue  byte = 0x04 // a value (negative numbers for varint and decimal)
	mValue2 byte = 0x05 // NaN; non-negative varint; zero decimal
	mValue3 byte = 0x06 // positive decimal
)

// Java's canonical NaNs (Float/Double.NaN).
const (
	canonicalNaN32 uint32 = 0x7fc00000
	canonicalNaN64 uint64 = 0x7ff8000000000000
)

// badValue is an Invalid error for a value that is not a valid serialization
// of its type.
func badValue(t *cql.Type, format string, args ...any) error {
	return bindings.Errorf(bindings.CodeInvalid, "invalid %s value: %s", t, fmt.Sprintf(format, args...))
}

// compEncoder encodes components and collects their tie items.
type compEncoder struct {
	ties []byte
	// nonDefault: some tie item differs from its default, so the row key
	// needs its tie section.
	nonDefault bool
}

// appendComponent appends the canonical order-preserving encoding of the
// non-null CQL-serialized value v of type t.
func (e *compEncoder) appendComponent(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return append(dst, mEmpty), nil
	}
	switch t.Kind {
	case cql.KindInt, cql.KindBigint, cql.KindCounter, cql.KindTimestamp, cql.KindSmallint, cql.KindTinyint:
		w := fixedWidth(t.Kind)
		if len(v) != w {
			return nil, badValue(t, "expected %d bytes, got %d", w, len(v))
		}
		dst = append(dst, mValue, v[0]^0x80)
		return append(dst, v[1:]...), nil
	case cql.KindDate, cql.KindTime:
		// Cassandra compares dates (unsigned days) and times (non-negative
		// nanoseconds) bytewise.
		w := fixedWidth(t.Kind)
		if len(v) != w {
			return nil, badValue(t, "expected %d bytes, got %d", w, len(v))
		}
		return append(append(dst, mValue), v...), nil
	case cql.KindBoolean:
		// Cassandra: 0x00 is false, any other byte true.
		if len(v) != 1 {
			return nil, badValue(t, "expected 1 byte, got %d", len(v))
		}
		c := byte(0)
		if v[0] != 0 {
			c = 1
		}
		e.tie(v[0] != c, v[0])
		return append(dst, mValue, c), nil
	case cql.KindFloat:
		return e.appendFloat(dst, t, v, 4)
	case cql.KindDouble:
		return e.appendFloat(dst, t, v, 8)
	case cql.KindAscii, cql.KindText, cql.KindBlob, cql.KindInet:
		return appendEscaped(append(dst, mValue), v), nil
	case cql.KindUUID:
		return appendUUID(dst, t, v)
	case cql.KindTimeuuid:
		return appendTimeUUID(dst, t, v)
	case cql.KindVarint:
		return e.appendVarint(dst, v), nil
	case cql.KindDecimal:
		return e.appendDecimal(dst, t, v)
	case cql.KindList, cql.KindSet:
		return e.appendCollection(dst, t, v, 1)
	case cql.KindMap:
		return e.appendCollection(dst, t, v, 2)
	case cql.KindTuple, cql.KindUDT:
		return e.appendTuple(dst, t, v)
	case cql.KindVector:
		return e.appendVector(dst, t, v)
	}
	return nil, bindings.Errorf(bindings.CodeInvalid, "type %s cannot be part of a primary key", t)
}

// tie records tie bytes; differs says they are not the default.
func (e *compEncoder) tie(differs bool, b ...byte) {
	e.ties = append(e.ties, b...)
	e.nonDefault = e.nonDefault || differs
}

// appendFloat orders IEEE floats as Java's Float/Double.compare: -0.0 before
// 0.0 and every NaN after +Inf. Non-NaN: flip the sign bit of positives and
// all bits of negatives. NaN: its own marker; its bits are a tie item.
func (e *compEncoder) appendFloat(dst []byte, t *cql.Type, v []byte, width int) ([]byte, error) {
	if len(v) != width {
		return nil, badValue(t, "expected %d bytes, got %d", width, len(v))
	}
	var bits uint64
	if width == 4 {
		b := binary.BigEndian.Uint32(v)
		if f := math.Float32frombits(b); f != f {
			e.tie(b != canonicalNaN32, v...)
			return append(dst, mValue2), nil
		}
		bits = uint64(b)
	} else {
		bits = binary.BigEndian.Uint64(v)
		if math.IsNaN(math.Float64frombits(bits)) {
			e.tie(bits != canonicalNaN64, v...)
			return append(dst, mValue2), nil
		}
	}
	sign := uint64(1) << (8*width - 1)
	if bits&sign != 0 {
		bits = ^bits
	} else {
		bits ^= sign
	}
	dst = append(dst, mValue)
	if width == 4 {
		return binary.BigEndian.AppendUint32(dst, uint32(bits)), nil
	}
	return binary.BigEndian.AppendUint64(dst, bits), nil
}

func (d *compDecoder) decodeFloat(m byte, width int, out []byte) ([]byte, error) {
	if m == mValue2 { // NaN
		if d.tie == nil {
			if width == 4 {
				return binary.BigEndian.AppendUint32(out, canonicalNaN32), nil
			}
			return binary.BigEndian.AppendUint64(out, canonicalNaN64), nil
		}
		start := len(out)
		out, ok := d.tie.take(width, out)
		if !ok {
			return nil, corrupt("truncated NaN")
		}
		p := out[start:]
		if width == 4 {
			b := binary.BigEndian.Uint32(p)
			if f := math.Float32frombits(b); f == f {
				return nil, corrupt("NaN tie is not a NaN")
			}
			d.nonDefault = d.nonDefault || b != canonicalNaN32
		} else {
			b := binary.BigEndian.Uint64(p)
			if !math.IsNaN(math.Float64frombits(b)) {
				return nil, corrupt("NaN tie is not a NaN")
			}
			d.nonDefault = d.nonDefault || b != canonicalNaN64
		}
		return out, nil
	}
	start := len(out)
	out, ok := d.r.take(width, out)
	if !ok {
		return nil, corrupt("truncated float")
	}
	p := out[start:]
	// Encoded values with the top bit set were non-negative.
	if p[0]&0x80 != 0 {
		p[0] ^= 0x80
	} else {
		for i := range p {
			p[i] = ^p[i]
		}
	}
	var nan bool
	if width == 4 {
		f := math.Float32frombits(binary.BigEndian.Uint32(p))
		nan = f != f
	} else {
		nan = math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(p)))
	}
	if nan {
		return nil, corrupt("NaN under the number marker")
	}
	return out, nil
}

// UUIDs in Cassandra's UUIDType order: version first; version 1 by its
// timestamp (time_hi, time_mid, time_low), others by the high word unsigned;
// then the low word unsigned. Payload: version byte, 8 bytes (reordered for
// version 1), 8 bytes.
func appendUUID(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	if len(v) != 16 {
		return nil, badValue(t, "expected 16 bytes, got %d", len(v))
	}
	msb := binary.BigEndian.Uint64(v)
	ver := byte(msb>>12) & 0x0F
	if ver == 1 {
		msb = reorderTimestamp(msb)
	}
	dst = append(dst, mValue, ver)
	dst = binary.BigEndian.AppendUint64(dst, msb)
	return append(dst, v[8:]...), nil
}

func decodeUUID(r *keyReader, out []byte) ([]byte, error) {
	var p [17]byte
	if _, ok := r.take(17, p[:0]); !ok {
		return nil, corrupt("truncated uuid")
	}
	msb := binary.BigEndian.Uint64(p[1:])
	if p[0] == 1 {
		msb = reorderTimestampBack(msb)
	}
	if byte(msb>>12)&0x0F != p[0] {
		return nil, corrupt("uuid version mismatch")
	}
	out = binary.BigEndian.AppendUint64(out, msb)
	return append(out, p[9:]...), nil
}

// Timeuuids in Cassandra's TimeUUIDType order: timestamp, then the low word
// compared as signed bytes (hence each byte's top bit flipped).
func appendTimeUUID(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	if len(v) != 16 {
		return nil, badValue(t, "expected 16 bytes, got %d", len(v))
	}
	msb := binary.BigEndian.Uint64(v)
	if (msb>>12)&0x0F != 1 {
		return nil, badValue(t, "Invalid version for TimeUUID type.")
	}
	dst = append(dst, mValue)
	dst = binary.BigEndian.AppendUint64(dst, reorderTimestamp(msb))
	for _, b := range v[8:] {
		dst = append(dst, b^0x80)
	}
	return dst, nil
}

func decodeTimeUUID(r *keyReader, out []byte) ([]byte, error) {
	var p [16]byte
	if _, ok := r.take(16, p[:0]); !ok {
		return nil, corrupt("truncated timeuuid")
	}
	msb := binary.BigEndian.Uint64(p[:])
	if msb>>60 != 1 {
		return nil, corrupt("timeuuid version")
	}
	out = binary.BigEndian.AppendUint64(out, reorderTimestampBack(msb))
	for _, b := range p[8:] {
		out = append(out, b^0x80)
	}
	return out, nil
}

// reorderTimestamp moves a version-1 UUID's high word from (time_low,
// time_mid, version|time_hi) to (version|time_hi, time_mid, time_low).
func reorderTimestamp(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF_0000_0000 | msb>>32
}

func reorderTimestampBack(r uint64) uint64 {
	return r<<32 | (r>>16)&0xFFFF_0000 | r>>48
}

// Frozen list, set and map: marker, the elements (map: key, value, key, ...)
// each encoded as a component, then 0x00. Cassandra compares frozen
// collections element by element, then by size, which this bytewise order
// reproduces (0x00 sorts before any element marker). Sets and map keys must
// already be in Cassandra's canonical (sorted, deduplicated) order.
func (e *compEncoder) appendCollection(dst []byte, t *cql.Type, v []byte, per int) ([]byte, error) {
	if len(v) < 4 {
		return nil, badValue(t, "truncated collection")
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n < 0 {
		return nil, badValue(t, "negative collection size")
	}
	v = v[4:]
	dst = append(dst, mValue)
	for i := 0; i < int(n)*per; i++ {
		el, rest, ok := readElem(v)
		if !ok {
			return nil, badValue(t, "truncated collection element")
		}
		if el == nil {
			return nil, badValue(t, "null is not supported inside collections")
		}
		var err error
		if dst, err = e.appendComponent(dst, t.Elems[i%per], el); err != nil {
			return nil, err
		}
		v = rest
	}
	if len(v) != 0 {
		return nil, badValue(t, "%d trailing bytes", len(v))
	}
	return append(dst, keyTerm), nil
}

// readElem reads one [int32 length][bytes] element; length -1 is null (nil).
func readElem(v []byte) (el, rest []byte, ok bool) {
	if len(v) < 4 {
		return nil, nil, false
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n == -1 {
		return nil, v[4:], true
	}
	if n < 0 || int(n) > len(v)-4 {
		return nil, nil, false
	}
	return v[4 : 4+n : 4+n], v[4+n:], true
}

func (d *compDecoder) decodeCollection(t *cql.Type, per int, out []byte) ([]byte, error) {
	countAt := len(out)
	out = append(out, 0, 0, 0, 0)
	n := 0
	for ; ; n++ {
		m, ok := d.r.peek()
		if !ok {
			return nil, corrupt("unterminated collection")
		}
		if m == keyTerm {
			d.r.pos++
			break
		}
		var err error
		if out, err = d.decodeElem(t.Elems[n%per], out); err != nil {
			return nil, err
		}
	}
	if n%per != 0 {
		return nil, corrupt("map key without a value")
	}
	binary.BigEndian.PutUint32(out[countAt:], uint32(n/per))
	return out, nil
}

// decodeElem decodes one component as a length-prefixed element.
func (d *compDecoder) decodeElem(t *cql.Type, out []byte) ([]byte, error) {
	lenAt := len(out)
	out = append(out, 0, 0, 0, 0)
	out, err := d.decodeComponent(t, out)
	if err != nil {
		return nil, err
	}
	n := len(out) - lenAt - 4
	if n > math.MaxInt32 {
		return nil, corrupt("element too long")
	}
	binary.BigEndian.PutUint32(out[lenAt:], uint32(n))
	return out, nil
}

// Tuples and UDTs: marker, per component up to the last non-null one either
// mNull or its encoding, then 0x00; the count of trailing nulls is a tie
// item. As in Cassandra, null sorts before every value (the empty one
// included) and components compare left to right.
func (e *compEncoder) appendTuple(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	var elems [8][]byte
	es := elems[:0]
	last := -1
	for i := 0; len(v) > 0; i++ {
		if i >= len(t.Elems) {
			return nil, badValue(t, "more components than the type has")
		}
		el, rest, ok := readElem(v)
		if !ok {
			return nil, badValue(t, "truncated component %d", i)
		}
		es = append(es, el)
		if el != nil {
			last = i
		}
		v = rest
	}
	dst = append(dst, mValue)
	for i, el := range es[:last+1] {
		if el == nil {
			dst = append(dst, mNull)
			continue
		}
		var err error
		if dst, err = e.appendComponent(dst, t.Elems[i], el); err != nil {
			return nil, err
		}
	}
	trailing := len(es) - (last + 1)
	e.ties = appendOrdUint(e.ties, uint64(trailing))
	e.nonDefault = e.nonDefault || trailing != 0
	return append(dst, keyTerm), nil
}

func (d *compDecoder) decodeTuple(t *cql.Type, out []byte) ([]byte, error) {
	n := 0
	lastNull := false
	for ; ; n++ {
		m, ok := d.r.peek()
		if !ok {
			return nil, corrupt("unterminated tuple")
		}
		if m == keyTerm {
			d.r.pos++
			break
		}
		if n >= len(t.Elems) {
			return nil, corrupt("too many tuple components")
		}
		lastNull = m == mNull
		if lastNull {
			d.r.pos++
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32) // -1: null
			continue
		}
		var err error
		if out, err = d.decodeElem(t.Elems[n], out); err != nil {
			return nil, err
		}
	}
	if lastNull {
		return nil, corrupt("tuple ends with an encoded null")
	}
	trailing, err := d.tieUint()
	if err != nil {
		return nil, err
	}
	if trailing > uint64(len(t.Elems)-n) {
		return nil, corrupt("too many trailing nulls")
	}
	if n == 0 && trailing == 0 {
		// Zero components is the empty value, encoded as mEmpty; this is
		// only valid with a tie section giving the trailing nulls.
		if d.tie != nil {
			return nil, corrupt("tuple without components")
		}
		d.requireTies = true
	}
	for ; trailing > 0; trailing-- {
		out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
	}
	return out, nil
}

// compDecoder decodes components from r, taking tie items from tie (nil: the
// key has no tie section and every item has its default).
type compDecoder struct {
	r          keyReader
	tie        *keyReader
	nonDefault bool // a tie item read differs from its default
	// requireTies: decoded without ties, a value came out non-canonical,
	// so the key is corrupt unless it has a tie section.
	requireTies bool
}

// tieUint reads an unsigned tie item (default 0).
func (d *compDecoder) tieUint() (uint64, error) {
	if d.tie == nil {
		return 0, nil
	}
	x, err := decodeOrdUint(d.tie)
	d.nonDefault = d.nonDefault || x != 0
	return x, err
}

// decodeComponent decodes one component and appends its CQL-serialized
// bytes to out (nothing for an empty value).
func (d *compDecoder) decodeComponent(t *cql.Type, out []byte) ([]byte, error) {
	m, ok := d.r.next()
	if !ok {
		return nil, corrupt("missing component")
	}
	if m == mEmpty {
		return out, nil
	}
	bad := func() ([]byte, error) {
		return nil, corrupt(fmt.Sprintf("marker 0x%02x for %s", m, t))
	}
	switch t.Kind {
	case cql.KindVarint:
		if m != mValue && m != mValue2 {
			return bad()
		}
		return d.decodeVarint(m, out)
	case cql.KindDecimal:
		if m < mValue || m > mValue3 {
			return bad()
		}
		return d.decodeDecimal(m, out)
	case cql.KindFloat, cql.KindDouble:
		if m != mValue && m != mValue2 {
			return bad()
		}
		return d.decodeFloat(m, fixedWidth(t.Kind), out)
	}
	if m != mValue {
		return bad()
	}
	switch t.Kind {
	case cql.KindInt, cql.KindBigint, cql.KindCounter, cql.KindTimestamp, cql.KindSmallint, cql.KindTinyint:
		start := len(out)
		if out, ok = d.r.take(fixedWidth(t.Kind), out); !ok {
			return nil, corrupt("truncated integer")
		}
		out[start] ^= 0x80
		return out, nil
	case cql.KindDate, cql.KindTime:
		if out, ok = d.r.take(fixedWidth(t.Kind), out); !ok {
			return nil, corrupt("truncated value")
		}
		return out, nil
	case cql.KindBoolean:
		c, ok := d.r.next()
		if !ok || c > 1 {
			return nil, corrupt("bad boolean")
		}
		if d.tie == nil {
			return append(out, c), nil
		}
		raw, ok := d.tie.next()
		if !ok || (raw == 0) != (c == 0) {
			return nil, corrupt("bad boolean tie")
		}
		d.nonDefault = d.nonDefault || raw != c
		return append(out, raw), nil
	case cql.KindAscii, cql.KindText, cql.KindBlob, cql.KindInet:
		return decodeEscaped(&d.r, out)
	case cql.KindUUID:
		return decodeUUID(&d.r, out)
	case cql.KindTimeuuid:
		return decodeTimeUUID(&d.r, out)
	case cql.KindList, cql.KindSet:
		return d.decodeCollection(t, 1, out)
	case cql.KindMap:
		return d.decodeCollection(t, 2, out)
	case cql.KindTuple, cql.KindUDT:
		return d.decodeTuple(t, out)
	case cql.KindVector:
		return d.decodeVector(t, out)
	}
	return bad()
}

// fixedWidth is the serialized size of fixed-width key types.
func fixedWidth(k cql.Kind) int {
	switch k {
	case cql.KindTinyint, cql.KindBoolean:
		return 1
	case cql.KindSmallint:
		return 2
	case cql.KindInt, cql.KindDate, cql.KindFloat:
		return 4
	case cql.KindBigint, cql.KindCounter, cql.KindTimestamp, cql.KindTime, cql.KindDouble:
		return 8
	}
	return 0
}

// decodeEscaped reads an escaped string (see appendEscaped).
func decodeEscaped(r *keyReader, out []byte) ([]byte, error) {
	for {
		b, ok := r.next()
		if !ok {
			return nil, corrupt("unterminated string")
		}
		if b != 0 {
			out = append(out, b)
			continue
		}
		e, ok := r.next()
		switch {
		case ok && e == escByte:
			out = append(out, 0)
		case ok && e == escEnd:
			return out, nil
		default:
			return nil, corrupt("bad escape")
		}
	}
}

// keyReader reads a key, XORing every byte with inv (0xFF inside a DESC
// component) so decoders see the ascending encoding.
type keyReader struct {
	b   []byte
	pos int
	inv byte
}

func (r *keyReader) next() (byte, bool) {
	if r.pos >= len(r.b) {
		return 0, false
	}
	r.pos++
	return r.b[r.pos-1] ^ r.inv, true
}

func (r *keyReader) peek() (byte, bool) {
	if r.pos >= len(r.b) {
		return 0, false
	}
	return r.b[r.pos] ^ r.inv, true
}

// peekRaw peeks without applying inv.
func (r *keyReader) peekRaw() (byte, bool) {
	if r.pos >= len(r.b) {
		return 0, false
	}
	return r.b[r.pos], true
}

// take appends the next n bytes (XORed with inv) to out.
func (r *keyReader) take(n int, out []byte) ([]byte, bool) {
	if n < 0 || len(r.b)-r.pos < n {
		return out, false
	}
	start := len(out)
	out = append(out, r.b[r.pos:r.pos+n]...)
	if r.inv != 0 {
		for i := start; i < len(out); i++ {
			out[i] ^= r.inv
		}
	}
	r.pos += n
	return out, true
}
