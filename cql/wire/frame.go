package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

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

// Error is the message sent back to the client.
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

// ReadBody reads a frame body of n bytes. Bodies over 64 KiB grow
// (doubling) as their bytes arrive, so a length prefix alone never
// reserves its length.
func ReadBody(r io.Reader, n int) ([]byte, error) {
	const direct = 64 << 10
	b := make([]byte, min(n, direct))
	for got := 0; ; {
		k, err := io.ReadFull(r, b[got:])
		got += k
		if err != nil {
			return nil, err
		}
		if got == n {
			return b, nil
		}
		grown := make([]byte, min(n, 2*len(b)))
		copy(grown, b)
		b = grown
	}
}

// UnexpectedEOF turns io.EOF into io.ErrUnexpectedEOF: a stream that ends
// within a frame was cut short.
func UnexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// FrameBuffered tells whether br holds a whole v3/v4 frame, so that reading
// it will not wait.
func FrameBuffered(br *bufio.Reader) bool {
	if br.Buffered() < HeaderLen {
		return false
	}
	hb, err := br.Peek(HeaderLen)
	if err != nil {
		return false
	}
	h := ParseHeader(hb)
	return h.Length >= 0 && br.Buffered() >= HeaderLen+int(h.Length)
}
