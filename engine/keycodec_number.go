package engine

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Order-preserving encodings of unbounded numbers (varint, decimal) and of the
// small integers they need (lengths, exponents, scales).

// appendOrdUint appends x as one length byte n (0..8) and n big-endian bytes
// without leading zeros; larger values sort later.
func appendOrdUint(dst []byte, x uint64) []byte {
	n := (bits.Len64(x) + 7) / 8
	dst = append(dst, byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(x>>(8*i)))
	}
	return dst
}

func decodeOrdUint(r *keyReader) (uint64, error) {
	n, ok := r.next()
	if !ok || n > 8 {
		return 0, corrupt("bad unsigned number")
	}
	var x uint64
	for i := 0; i < int(n); i++ {
		b, ok := r.next()
		if !ok || (i == 0 && b == 0) {
			return 0, corrupt("bad unsigned number")
		}
		x = x<<8 | uint64(b)
	}
	return x, nil
}

// appendOrdInt appends v order-preservingly: v >= 0 as 0x80+n and the n
// minimal big-endian bytes of v; v < 0 as 0x7F-n and the low n bytes of v,
// where n is the minimal byte count of ^v.
func appendOrdInt(dst []byte, v int64) []byte {
	u, head := uint64(v), 0x80
	if v < 0 {
		u = ^uint64(v)
	}
	n := (bits.Len64(u) + 7) / 8
	if v < 0 {
		head = 0x7F - n
	} else {
		head += n
	}
	dst = append(dst, byte(head))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(uint64(v)>>(8*i)))
	}
	return dst
}

func decodeOrdInt(r *keyReader) (int64, error) {
	h, ok := r.next()
	if !ok || h < 0x77 || h > 0x88 {
		return 0, corrupt("bad signed number")
	}
	neg := h < 0x80
	n := int(h) - 0x80
	var u uint64
	if neg {
		n = 0x7F - int(h)
		u = math.MaxUint64 // sign extension
	}
	for i := 0; i < n; i++ {
		b, ok := r.next()
		if !ok {
			return 0, corrupt("bad signed number")
		}
		u = u<<8 | uint64(b)
	}
	v := int64(u)
	if appendOrdIntLen(v) != n {
		return 0, corrupt("non-minimal signed number")
	}
	return v, nil
}

func appendOrdIntLen(v int64) int {
	u := uint64(v)
	if v < 0 {
		u = ^u
	}
	return (bits.Len64(u) + 7) / 8
}

// complementFrom complements b[from:] in place (used to reverse the order of
// a prefix-free sub-encoding).
func complementFrom(b []byte, from int) {
	for i := from; i < len(b); i++ {
		b[i] = ^b[i]
	}
}

// stripVarint splits a two's-complement big-endian integer into its count of
// redundant sign-extension bytes and its minimal form.
func stripVarint(v []byte) (pad int, m []byte) {
	for pad+1 < len(v) && ((v[pad] == 0 && v[pad+1]&0x80 == 0) || (v[pad] == 0xFF && v[pad+1]&0x80 != 0)) {
		pad++
	}
	return pad, v[pad:]
}

// Varint: mValue for negatives, mValue2 otherwise; then the byte length L of
// the minimal two's complement (complemented for negatives, where longer
// means smaller) and its L bytes: within one length and sign, bytewise order
// is numeric order. Redundant leading bytes (0x0001 for 1, equal to 0x01 for
// Cassandra) are counted in a tie item.
func (e *compEncoder) appendVarint(dst, v []byte) []byte {
	pad, m := stripVarint(v)
	dst = appendVarintBody(dst, m)
	e.ties = appendOrdUint(e.ties, uint64(pad))
	e.nonDefault = e.nonDefault || pad != 0
	return dst
}

// appendVarintBody appends marker, length and bytes of a minimal varint.
func appendVarintBody(dst, m []byte) []byte {
	if m[0]&0x80 != 0 {
		dst = append(dst, mValue)
		at := len(dst)
		dst = appendOrdUint(dst, uint64(len(m)))
		complementFrom(dst, at)
	} else {
		dst = append(dst, mValue2)
		dst = appendOrdUint(dst, uint64(len(m)))
	}
	return append(dst, m...)
}

func (d *compDecoder) decodeVarint(marker byte, out []byte) ([]byte, error) {
	neg := marker == mValue
	if neg {
		d.r.inv ^= 0xFF
	}
	l, err := decodeOrdUint(&d.r)
	if neg {
		d.r.inv ^= 0xFF
	}
	if err != nil {
		return nil, err
	}
	if l == 0 || l > uint64(len(d.r.b)-d.r.pos) {
		return nil, corrupt("bad varint length")
	}
	m, ok := d.r.take(int(l), nil)
	if !ok {
		return nil, corrupt("truncated varint")
	}
	if p, _ := stripVarint(m); p != 0 {
		return nil, corrupt("non-minimal varint")
	}
	if (m[0]&0x80 != 0) != neg {
		return nil, corrupt("varint sign mismatch")
	}
	return d.appendPadded(out, m)
}

// appendPadded reads the padding tie item and appends m sign-extended by it.
func (d *compDecoder) appendPadded(out, m []byte) ([]byte, error) {
	pad, err := d.tieUint()
	if err != nil {
		return nil, err
	}
	if pad > maxDecodedPad {
		return nil, corrupt("varint padding too long")
	}
	ext := byte(0)
	if m[0]&0x80 != 0 {
		ext = 0xFF
	}
	for i := uint64(0); i < pad; i++ {
		out = append(out, ext)
	}
	return append(out, m...), nil
}

// maxDecodedPad and maxDecimalZeros bound what a corrupt key can make the
// decoder allocate; Cassandra caps clustering values at 64 KiB anyway.
const (
	maxDecodedPad   = 1 << 20
	maxDecimalZeros = 1 << 20
)

// Decimal (int32 scale, varint unscaled; value = unscaled * 10^-scale) in
// numeric order, as Cassandra's DecimalType (BigDecimal.compareTo):
// mValue (negative) / mValue2 (zero) / mValue3 (positive); for non-zero
// values the exponent E and the significant digits D with value = 0.D * 10^E
// (D without leading or trailing zeros), complemented for negatives. 1.5,
// 1.50 and 1.500 share that encoding; their tie items (the unscaled value's
// trailing zeros, then the varint padding; for zero the scale) tell them
// apart.
func (e *compEncoder) appendDecimal(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	if len(v) < 5 {
		return nil, badValue(t, "expected at least 5 bytes, got %d", len(v))
	}
	scale := int32(binary.BigEndian.Uint32(v))
	pad, m := stripVarint(v[4:])
	if len(m) == 1 && m[0] == 0 {
		dst = append(dst, mValue2)
		e.ties = appendOrdInt(e.ties, int64(scale))
		e.ties = appendOrdUint(e.ties, uint64(pad))
		e.nonDefault = e.nonDefault || scale != 0 || pad != 0
		return dst, nil
	}
	neg := m[0]&0x80 != 0
	digits := magnitude(m, neg).Text(10)
	sig := strings.TrimRight(digits, "0")
	exp := int64(len(digits)) - int64(scale)
	if neg {
		dst = append(dst, mValue)
	} else {
		dst = append(dst, mValue3)
	}
	at := len(dst)
	dst = appendOrdInt(dst, exp)
	dst = appendDigits(dst, sig)
	if neg {
		complementFrom(dst, at)
	}
	zeros := len(digits) - len(sig)
	e.ties = appendOrdUint(e.ties, uint64(zeros))
	e.ties = appendOrdUint(e.ties, uint64(pad))
	e.nonDefault = e.nonDefault || zeros != 0 || pad != 0
	return dst, nil
}

// magnitude returns |x| for a minimal two's-complement x.
func magnitude(m []byte, neg bool) *big.Int {
	if !neg {
		return new(big.Int).SetBytes(m)
	}
	c := make([]byte, len(m))
	for i, b := range m {
		c[i] = ^b
	}
	x := new(big.Int).SetBytes(c)
	return x.Add(x, big.NewInt(1)) // -x = ^x + 1
}

// twosComplement returns the minimal two's-complement bytes of x.
func twosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// x < 0: ^(|x| - 1), with a sign byte when needed.
	y := new(big.Int).Neg(x)
	y.Sub(y, big.NewInt(1))
	b := y.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// appendDigits packs decimal digits two per byte (10*d1 + d2 + 1, so bytes
// are 1..100; an odd last digit is padded with 0, which cannot be confused
// with a real pair since D never ends in 0) and ends them with 0x00.
func appendDigits(dst []byte, d string) []byte {
	for i := 0; i < len(d); i += 2 {
		hi := d[i] - '0'
		var lo byte
		if i+1 < len(d) {
			lo = d[i+1] - '0'
		}
		dst = append(dst, hi*10+lo+1)
	}
	return append(dst, 0)
}

func decodeDigits(r *keyReader) (string, error) {
	var sb strings.Builder
	for {
		b, ok := r.next()
		if !ok || b > 100 {
			return "", corrupt("bad decimal digits")
		}
		if b == 0 {
			break
		}
		x := b - 1
		sb.WriteByte('0' + x/10)
		if nb, ok := r.peek(); ok && nb == 0 && x%10 == 0 {
			continue // odd count: the last 0 is padding
		}
		sb.WriteByte('0' + x%10)
	}
	d := sb.String()
	if d == "" || d[0] == '0' || d[len(d)-1] == '0' {
		return "", corrupt("non-canonical decimal digits")
	}
	return d, nil
}

func (d *compDecoder) decodeDecimal(marker byte, out []byte) ([]byte, error) {
	if marker == mValue2 { // zero
		scale := int64(0)
		if d.tie != nil {
			var err error
			if scale, err = decodeOrdInt(d.tie); err != nil {
				return nil, err
			}
			d.nonDefault = d.nonDefault || scale != 0
		}
		if scale < math.MinInt32 || scale > math.MaxInt32 {
			return nil, corrupt("decimal scale out of range")
		}
		out = binary.BigEndian.AppendUint32(out, uint32(int32(scale)))
		return d.appendPadded(out, []byte{0})
	}
	neg := marker == mValue
	if neg {
		d.r.inv ^= 0xFF
	}
	exp, err := decodeOrdInt(&d.r)
	var sig string
	if err == nil {
		sig, err = decodeDigits(&d.r)
	}
	if neg {
		d.r.inv ^= 0xFF
	}
	if err != nil {
		return nil, err
	}
	zeros, err := d.tieUint()
	if err != nil {
		return nil, err
	}
	if zeros > maxDecimalZeros {
		return nil, corrupt("decimal exponent out of range")
	}
	// value = 0.D * 10^E = D * 10^zeros * 10^-scale
	scale := int64(len(sig)) + int64(zeros) - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		if d.tie != nil {
			return nil, corrupt("decimal scale out of range")
		}
		// Valid only with the zeros of a tie section (this is the pass
		// without it).
		d.requireTies = true
		scale = 0
	}
	out = binary.BigEndian.AppendUint32(out, uint32(int32(scale)))
	x, _ := new(big.Int).SetString(sig+strings.Repeat("0", int(zeros)), 10)
	if neg {
		x.Neg(x)
	}
	return d.appendPadded(out, twosComplement(x))
}
