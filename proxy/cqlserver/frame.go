package cqlserver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
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
	stream int16
}

func (e *ProtocolError) Error() string { return e.Msg }

// WithStream attaches the stream id of the offending frame to a protocol
// error (other errors pass through).
func WithStream(err error, stream int16) error {
	switch e := err.(type) {
	case *ProtocolError:
		if e.stream == 0 {
			return &ProtocolError{Msg: e.Msg, stream: stream}
		}
	case *TooBigError:
		if e.stream == 0 {
			return &TooBigError{length: e.length, max: e.max, stream: stream}
		}
	}
	return err
}

func SupportedVersion(v byte) bool { return v >= 3 && v <= 5 }

func ProtocolErrorf(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// ---- decoding ----

// Reader reads protocol notations from a body. The first failure sticks: every
// later read returns zero values, and err reports it.
type Reader struct {
	b   []byte
	err error
}

var ErrShortBody = errors.New("not enough bytes to read")

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail(ErrShortBody)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *Reader) Byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *Reader) short() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *Reader) Int() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *Reader) long() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *Reader) Str() string {
	n := int(r.short())
	return string(r.take(n))
}

func (r *Reader) LongStr() string {
	n := r.Int()
	if n < 0 {
		r.fail(fmt.Errorf("negative [long string] length %d", n))
		return ""
	}
	b := r.take(int(n))
	if r.err == nil && !utf8.Valid(b) {
		r.fail(errors.New("invalid UTF-8 in [long string]"))
	}
	return string(b)
}

// Bytes reads [bytes]: nil for a negative length.
func (r *Reader) Bytes() []byte {
	n := r.Int()
	if n < 0 || r.err != nil {
		return nil
	}
	b := r.take(int(n))
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

func (r *Reader) ShortBytes() []byte {
	n := int(r.short())
	b := r.take(n)
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

// value reads a [value]: null for -1, and (v4+) unset for -2.
func (r *Reader) value(version byte) bindings.Value {
	n := r.Int()
	if r.err != nil {
		return bindings.Value{}
	}
	switch {
	case n >= 0:
		b := r.take(int(n))
		if b == nil && r.err == nil {
			b = []byte{}
		}
		return bindings.Value{Bytes: b}
	case n == -1:
		return bindings.Value{}
	case n == -2 && version >= 4:
		return bindings.Value{Unset: true}
	case version < 4:
		return bindings.Value{} // v3: every negative length is null
	}
	r.fail(fmt.Errorf("invalid [value] length %d", n))
	return bindings.Value{}
}

func (r *Reader) StringList() []string {
	n := int(r.short())
	if n*2 > len(r.b) {
		r.fail(ErrShortBody)
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.Str())
	}
	return out
}

func (r *Reader) StringMap() map[string]string {
	n := int(r.short())
	if n*4 > len(r.b) {
		r.fail(ErrShortBody)
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
	n := int(r.short())
	if n*6 > len(r.b) { // a key length, a value length
		r.fail(ErrShortBody)
		return nil
	}
	m := make(map[string][]byte, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := string(r.take(int(r.short())))
		var v []byte
		if l := r.Int(); l > 0 {
			v = r.take(int(l))
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
