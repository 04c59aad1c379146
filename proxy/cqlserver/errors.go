package cqlserver

import (
	"errors"

	"github.com/dohyo/dohyo/bindings"
)

// ERROR messages (native_protocol_v5.spec §4.2.1 and §8): <code><message>
// and the code-specific fields.

// errorFrame encodes err for stream. Errors that are not *bindings.Error
// become ServerError with their text (and are logged: they are dohyo bugs
// or backend failures without a CQL code).
func (c *conn) errorFrame(stream int16, err error) []byte {
	var be *bindings.Error
	if !errors.As(err, &be) {
		c.log.Warn("request failed without a CQL error code", "err", err)
	}
	e := bindings.AsError(err)
	v := c.version
	if v == 0 {
		v = 4
	}
	code := e.Code
	if v < 4 { // v3 has no failure codes: degrade as Cassandra's ErrorMessage does
		switch code {
		case bindings.CodeReadFailure:
			code = bindings.CodeReadTimeout
		case bindings.CodeWriteFailure:
			code = bindings.CodeWriteTimeout
		case bindings.CodeFunctionFail:
			code = bindings.CodeInvalid
		}
	}
	f := StartFrame(getBuf(), v, 0, stream, OpError)
	f = AppendInt(f, int32(code))
	f = AppendString(f, e.Message)
	switch code {
	case bindings.CodeUnavailable:
		f = AppendShort(f, uint16(e.Consistency))
		f = AppendInt(f, e.BlockFor) // required
		f = AppendInt(f, e.Received) // alive
	case bindings.CodeWriteTimeout:
		f = AppendShort(f, uint16(e.Consistency))
		f = AppendInt(f, e.Received)
		f = AppendInt(f, e.BlockFor)
		f = AppendString(f, writeType(e))
		if v >= 5 && writeType(e) == "CAS" {
			f = AppendShort(f, 0) // contentions
		}
	case bindings.CodeReadTimeout:
		f = AppendShort(f, uint16(e.Consistency))
		f = AppendInt(f, e.Received)
		f = AppendInt(f, e.BlockFor)
		f = append(f, boolByte(e.DataPresent))
	case bindings.CodeReadFailure:
		f = AppendShort(f, uint16(e.Consistency))
		f = AppendInt(f, e.Received)
		f = AppendInt(f, e.BlockFor)
		f = AppendInt(f, 0) // v5: empty <reasonmap>; v4: <numfailures>
		f = append(f, boolByte(e.DataPresent))
	case bindings.CodeWriteFailure:
		f = AppendShort(f, uint16(e.Consistency))
		f = AppendInt(f, e.Received)
		f = AppendInt(f, e.BlockFor)
		f = AppendInt(f, 0) // v5: empty <reasonmap>; v4: <numfailures>
		f = AppendString(f, writeType(e))
	case bindings.CodeFunctionFail:
		f = AppendString(f, e.Keyspace)
		f = AppendString(f, "")
		f = AppendStringList(f, nil)
	case bindings.CodeAlreadyExists:
		f = AppendString(f, e.Keyspace)
		f = AppendString(f, e.Table)
	case bindings.CodeUnprepared:
		f = AppendShortBytes(f, e.UnpreparedID)
	}
	return f
}

func writeType(e *bindings.Error) string {
	if e.WriteType == "" {
		return "SIMPLE"
	}
	return e.WriteType
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
