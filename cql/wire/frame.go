package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Frame layout (native_protocol_v4.spec §2, v5 §2.4): a 9-byte header
// (version|direction, flags, stream, opcode, body length) and a body. Bodies
// are decoded by hand from a byte slice (Reader) rather than through the
// native-protocol library's io.Reader decoders: every length is checked
// against what is left, so a hostile length prefix can never make us
// allocate gigabytes, and values stay zero-copy slices of the body.

const (
	HeaderLen   = primitive.FrameHeaderLengthV3AndHigher
	ResponseBit = 0x80
	VersionMask = 0x7F

	FlagCompressed    = byte(primitive.HeaderFlagCompressed)
	FlagTracing       = byte(primitive.HeaderFlagTracing)
	FlagCustomPayload = byte(primitive.HeaderFlagCustomPayload)
	FlagWarning       = byte(primitive.HeaderFlagWarning)
	FlagUseBeta       = byte(primitive.HeaderFlagUseBeta)
)

// Opcodes as bytes (the header carries one byte).
const (
	OpError         = byte(primitive.OpCodeError)
	OpStartup       = byte(primitive.OpCodeStartup)
	OpReady         = byte(primitive.OpCodeReady)
	OpAuthenticate  = byte(primitive.OpCodeAuthenticate)
	OpOptions       = byte(primitive.OpCodeOptions)
	OpSupported     = byte(primitive.OpCodeSupported)
	OpQuery         = byte(primitive.OpCodeQuery)
	OpResult        = byte(primitive.OpCodeResult)
	OpPrepare       = byte(primitive.OpCodePrepare)
	OpExecute       = byte(primitive.OpCodeExecute)
	OpRegister      = byte(primitive.OpCodeRegister)
	OpEvent         = byte(primitive.OpCodeEvent)
	OpBatch         = byte(primitive.OpCodeBatch)
	OpAuthChallenge = byte(primitive.OpCodeAuthChallenge)
	OpAuthResponse  = byte(primitive.OpCodeAuthResponse)
	OpAuthSuccess   = byte(primitive.OpCodeAuthSuccess)
)

var opNames = map[byte]string{
	OpError: "ERROR", OpStartup: "STARTUP", OpReady: "READY", OpAuthenticate: "AUTHENTICATE",
	OpOptions: "OPTIONS", OpSupported: "SUPPORTED", OpQuery: "QUERY", OpResult: "RESULT",
	OpPrepare: "PREPARE", OpExecute: "EXECUTE", OpRegister: "REGISTER", OpEvent: "EVENT",
	OpBatch: "BATCH", OpAuthChallenge: "AUTH_CHALLENGE", OpAuthResponse: "AUTH_RESPONSE",
	OpAuthSuccess: "AUTH_SUCCESS",
}

// KnownOp reports whether op is an opcode of protocol v3-v5.
func KnownOp(op byte) bool {
	_, ok := opNames[op]
	return ok
}

// OpName is an opcode's name as the specification writes it.
func OpName(op byte) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("opcode 0x%02X", op)
}

// Header is a decoded frame (envelope) Header.
type Header struct {
	Response bool
	Version  byte // without the direction bit
	Flags    byte
	Stream   int16
	Op       byte
	Length   int32
}

// ParseHeader decodes the 9 header bytes of a v3+ frame.
func ParseHeader(b []byte) Header {
	return Header{
		Response: b[0]&ResponseBit != 0,
		Version:  b[0] & VersionMask,
		Flags:    b[1],
		Stream:   int16(binary.BigEndian.Uint16(b[2:4])),
		Op:       b[4],
		Length:   int32(binary.BigEndian.Uint32(b[5:9])),
	}
}

// StartFrame appends a response header with a zero length (patched by
// FinishFrame) and returns the buffer.
func StartFrame(dst []byte, version, flags byte, stream int16, op byte) []byte {
	return append(dst, version|ResponseBit, flags, byte(uint16(stream)>>8), byte(stream), op, 0, 0, 0, 0)
}

// FinishFrame writes the body length of the frame starting at dst[0].
func FinishFrame(frame []byte) {
	binary.BigEndian.PutUint32(frame[5:9], uint32(len(frame)-HeaderLen))
}

// ProtocolError is a protocol violation by the client: it is answered with a
// ProtocolError on the offending stream and the connection is closed.
type ProtocolError struct {
	Msg    string
	Stream int16 // the offending frame's stream (see WithStream)
}

func (e *ProtocolError) Error() string { return e.Msg }

// WithStream attaches the stream id of the offending frame to a protocol
// error (other errors pass through).
func WithStream(err error, stream int16) error {
	switch e := err.(type) {
	case *ProtocolError:
		if e.Stream == 0 {
			return &ProtocolError{Msg: e.Msg, Stream: stream}
		}
	case *TooBigError:
		if e.Stream == 0 {
			return &TooBigError{Length: e.Length, Max: e.Max, Stream: stream}
		}
	}
	return err
}

// SupportedVersion reports whether v is a protocol version this codec
// speaks (3, 4 or 5).
func SupportedVersion(v byte) bool { return v >= 3 && v <= 5 }

// ProtocolErrorf formats a *ProtocolError.
func ProtocolErrorf(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// ---- decoding ----

// Reader reads protocol notations from a body. The first failure sticks: every
// later read returns zero values, and Err reports it. Every length is
// checked against what is left before anything is taken or allocated;
// byte values are slices of the body (capacity clipped), never copies.
type Reader struct {
	b   []byte
	err error
}

// NewReader reads body.
func NewReader(body []byte) *Reader { return &Reader{b: body} }

// ErrShortBody is the error of a read past the end of the body.
var ErrShortBody = errors.New("not enough bytes to read")

// Err is the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Rest is what is left to read (nil after a failure).
func (r *Reader) Rest() []byte { return r.b }

// Fail records err (unless an earlier failure is recorded) and empties
// the reader.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *Reader) Take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *Reader) Byte() byte {
	if b := r.Take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *Reader) Short() uint16 {
	if b := r.Take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *Reader) Int() int32 {
	if b := r.Take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *Reader) Long() int64 {
	if b := r.Take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *Reader) Str() string {
	n := int(r.Short())
	return string(r.Take(n))
}

func (r *Reader) LongStr() string {
	n := r.Int()
	if n < 0 {
		r.Fail(fmt.Errorf("negative [long string] length %d", n))
		return ""
	}
	b := r.Take(int(n))
	if r.err == nil && !utf8.Valid(b) {
		r.Fail(errors.New("invalid UTF-8 in [long string]"))
	}
	return string(b)
}

// Bytes reads [bytes]: nil for a negative length.
func (r *Reader) Bytes() []byte {
	n := r.Int()
	if n < 0 || r.err != nil {
		return nil
	}
	b := r.Take(int(n))
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

func (r *Reader) ShortBytes() []byte {
	n := int(r.Short())
	b := r.Take(n)
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

// Value reads a [value]: b is nil for null (-1; in v3 every negative
// length), an empty slice for an empty value; unset is true for v4+'s
// unset (-2).
func (r *Reader) Value(version byte) (b []byte, unset bool) {
	n := r.Int()
	if r.err != nil {
		return nil, false
	}
	switch {
	case n >= 0:
		b := r.Take(int(n))
		if b == nil && r.err == nil {
			b = []byte{}
		}
		return b, false
	case n == -1:
		return nil, false
	case n == -2 && version >= 4:
		return nil, true
	case version < 4:
		return nil, false // v3: every negative length is null
	}
	r.Fail(fmt.Errorf("invalid [value] length %d", n))
	return nil, false
}

func (r *Reader) StringList() []string {
	n := int(r.Short())
	if n*2 > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.Str())
	}
	return out
}

func (r *Reader) StringMap() map[string]string {
	n := int(r.Short())
	if n*4 > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := make(map[string]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.Str()
		out[k] = r.Str()
	}
	return out
}

// skipBytesMap skips a [bytes map] (a request's custom payload).
// BytesMap reads a [bytes map] (custom payloads); a null value is nil.
func (r *Reader) BytesMap() map[string][]byte {
	n := int(r.Short())
	if n*6 > len(r.b) { // a key length, a value length
		r.Fail(ErrShortBody)
		return nil
	}
	m := make(map[string][]byte, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := string(r.Take(int(r.Short())))
		var v []byte
		if l := r.Int(); l > 0 {
			v = r.Take(int(l))
		}
		m[k] = v
	}
	return m
}

// ---- encoding ----

func AppendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func AppendInt(b []byte, v int32) []byte    { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func AppendLong(b []byte, v int64) []byte   { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// AppendLongString writes a [long string].
func AppendLongString(b []byte, s string) []byte {
	return append(AppendInt(b, int32(len(s))), s...)
}

// AppendString writes a [string]; longer strings are truncated at 65535
// bytes (only error messages can be that long).
func AppendString(b []byte, s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b = AppendShort(b, uint16(len(s)))
	return append(b, s...)
}

func AppendBytes(b, v []byte) []byte {
	if v == nil {
		return AppendInt(b, -1)
	}
	b = AppendInt(b, int32(len(v)))
	return append(b, v...)
}

func AppendShortBytes(b, v []byte) []byte {
	if len(v) > math.MaxUint16 {
		v = v[:math.MaxUint16]
	}
	b = AppendShort(b, uint16(len(v)))
	return append(b, v...)
}

func AppendStringList(b []byte, l []string) []byte {
	b = AppendShort(b, uint16(len(l)))
	for _, s := range l {
		b = AppendString(b, s)
	}
	return b
}
