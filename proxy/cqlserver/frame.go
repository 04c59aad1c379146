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
// are decoded by hand from a byte slice (rbuf) rather than through the
// native-protocol library's io.Reader decoders: every length is checked
// against what is left, so a hostile length prefix can never make us
// allocate gigabytes, and values stay zero-copy slices of the body.

const (
	headerLen   = primitive.FrameHeaderLengthV3AndHigher
	responseBit = 0x80
	versionMask = 0x7F

	flagCompressed    = byte(primitive.HeaderFlagCompressed)
	flagTracing       = byte(primitive.HeaderFlagTracing)
	flagCustomPayload = byte(primitive.HeaderFlagCustomPayload)
	flagWarning       = byte(primitive.HeaderFlagWarning)
	flagUseBeta       = byte(primitive.HeaderFlagUseBeta)
)

// Opcodes as bytes (the header carries one byte).
const (
	opError         = byte(primitive.OpCodeError)
	opStartup       = byte(primitive.OpCodeStartup)
	opReady         = byte(primitive.OpCodeReady)
	opAuthenticate  = byte(primitive.OpCodeAuthenticate)
	opOptions       = byte(primitive.OpCodeOptions)
	opSupported     = byte(primitive.OpCodeSupported)
	opQuery         = byte(primitive.OpCodeQuery)
	opResult        = byte(primitive.OpCodeResult)
	opPrepare       = byte(primitive.OpCodePrepare)
	opExecute       = byte(primitive.OpCodeExecute)
	opRegister      = byte(primitive.OpCodeRegister)
	opEvent         = byte(primitive.OpCodeEvent)
	opBatch         = byte(primitive.OpCodeBatch)
	opAuthChallenge = byte(primitive.OpCodeAuthChallenge)
	opAuthResponse  = byte(primitive.OpCodeAuthResponse)
	opAuthSuccess   = byte(primitive.OpCodeAuthSuccess)
)

var opNames = map[byte]string{
	opError: "ERROR", opStartup: "STARTUP", opReady: "READY", opAuthenticate: "AUTHENTICATE",
	opOptions: "OPTIONS", opSupported: "SUPPORTED", opQuery: "QUERY", opResult: "RESULT",
	opPrepare: "PREPARE", opExecute: "EXECUTE", opRegister: "REGISTER", opEvent: "EVENT",
	opBatch: "BATCH", opAuthChallenge: "AUTH_CHALLENGE", opAuthResponse: "AUTH_RESPONSE",
	opAuthSuccess: "AUTH_SUCCESS",
}

func opName(op byte) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("opcode 0x%02X", op)
}

// header is a decoded frame (envelope) header.
type header struct {
	response bool
	version  byte // without the direction bit
	flags    byte
	stream   int16
	op       byte
	length   int32
}

// parseHeader decodes the 9 header bytes of a v3+ frame.
func parseHeader(b []byte) header {
	return header{
		response: b[0]&responseBit != 0,
		version:  b[0] & versionMask,
		flags:    b[1],
		stream:   int16(binary.BigEndian.Uint16(b[2:4])),
		op:       b[4],
		length:   int32(binary.BigEndian.Uint32(b[5:9])),
	}
}

// startFrame appends a response header with a zero length (patched by
// finishFrame) and returns the buffer.
func startFrame(dst []byte, version, flags byte, stream int16, op byte) []byte {
	return append(dst, version|responseBit, flags, byte(uint16(stream)>>8), byte(stream), op, 0, 0, 0, 0)
}

// finishFrame writes the body length of the frame starting at dst[0].
func finishFrame(frame []byte) {
	binary.BigEndian.PutUint32(frame[5:9], uint32(len(frame)-headerLen))
}

// errProtocol is a protocol violation by the client: it is answered with a
// ProtocolError on the offending stream and the connection is closed.
type errProtocol struct {
	msg    string
	stream int16
}

func (e *errProtocol) Error() string { return e.msg }

// withStream attaches the stream id of the offending frame to a protocol
// error (other errors pass through).
func withStream(err error, stream int16) error {
	switch e := err.(type) {
	case *errProtocol:
		if e.stream == 0 {
			return &errProtocol{msg: e.msg, stream: stream}
		}
	case *errTooBig:
		if e.stream == 0 {
			return &errTooBig{length: e.length, max: e.max, stream: stream}
		}
	}
	return err
}

func supportedVersion(v byte) bool { return v >= 3 && v <= 5 }

func protocolErrorf(format string, args ...any) error {
	return &errProtocol{msg: fmt.Sprintf(format, args...)}
}

// ---- decoding ----

// rbuf reads protocol notations from a body. The first failure sticks: every
// later read returns zero values, and err reports it.
type rbuf struct {
	b   []byte
	err error
}

var errShortBody = errors.New("not enough bytes to read")

func (r *rbuf) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *rbuf) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail(errShortBody)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *rbuf) byte_() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *rbuf) short() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *rbuf) int_() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *rbuf) long() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *rbuf) string_() string {
	n := int(r.short())
	return string(r.take(n))
}

func (r *rbuf) longString() string {
	n := r.int_()
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

// bytes_ reads [bytes]: nil for a negative length.
func (r *rbuf) bytes_() []byte {
	n := r.int_()
	if n < 0 || r.err != nil {
		return nil
	}
	b := r.take(int(n))
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

func (r *rbuf) shortBytes() []byte {
	n := int(r.short())
	b := r.take(n)
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

// value reads a [value]: null for -1, and (v4+) unset for -2.
func (r *rbuf) value(version byte) bindings.Value {
	n := r.int_()
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

func (r *rbuf) stringList() []string {
	n := int(r.short())
	if n*2 > len(r.b) {
		r.fail(errShortBody)
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.string_())
	}
	return out
}

func (r *rbuf) stringMap() map[string]string {
	n := int(r.short())
	if n*4 > len(r.b) {
		r.fail(errShortBody)
		return nil
	}
	out := make(map[string]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.string_()
		out[k] = r.string_()
	}
	return out
}

// skipBytesMap skips a [bytes map] (a request's custom payload).
// bytesMap reads a [bytes map] (custom payloads); a null value is nil.
func (r *rbuf) bytesMap() map[string][]byte {
	n := int(r.short())
	if n*6 > len(r.b) { // a key length, a value length
		r.fail(errShortBody)
		return nil
	}
	m := make(map[string][]byte, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := string(r.take(int(r.short())))
		var v []byte
		if l := r.int_(); l > 0 {
			v = r.take(int(l))
		}
		m[k] = v
	}
	return m
}

// ---- encoding ----

func appendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func appendInt(b []byte, v int32) []byte    { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func appendLong(b []byte, v int64) []byte   { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// appendLongString writes a [long string].
func appendLongString(b []byte, s string) []byte {
	return append(appendInt(b, int32(len(s))), s...)
}

// appendString writes a [string]; longer strings are truncated at 65535
// bytes (only error messages can be that long).
func appendString(b []byte, s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b = appendShort(b, uint16(len(s)))
	return append(b, s...)
}

func appendBytes(b, v []byte) []byte {
	if v == nil {
		return appendInt(b, -1)
	}
	b = appendInt(b, int32(len(v)))
	return append(b, v...)
}

func appendShortBytes(b, v []byte) []byte {
	if len(v) > math.MaxUint16 {
		v = v[:math.MaxUint16]
	}
	b = appendShort(b, uint16(len(v)))
	return append(b, v...)
}

func appendStringList(b []byte, l []string) []byte {
	b = appendShort(b, uint16(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}
