package cqlserver

import (
	"errors"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
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
	f := wire.StartFrame(getBuf(), v, 0, stream, wire.OpError)
	f = wire.AppendInt(f, int32(code))
	f = wire.AppendString(f, e.Message)
	switch code {
	case bindings.CodeUnavailable:
		f = wire.AppendShort(f, uint16(e.Consistency))
		f = wire.AppendInt(f, e.BlockFor) // required
		f = wire.AppendInt(f, e.Received) // alive
	case bindings.CodeWriteTimeout:
		f = wire.AppendShort(f, uint16(e.Consistency))
		f = wire.AppendInt(f, e.Received)
		f = wire.AppendInt(f, e.BlockFor)
		f = wire.AppendString(f, writeType(e))
		if v >= 5 && writeType(e) == "CAS" {
			f = wire.AppendShort(f, 0) // contentions
		}
	case bindings.CodeReadTimeout:
		f = wire.AppendShort(f, uint16(e.Consistency))
		f = wire.AppendInt(f, e.Received)
		f = wire.AppendInt(f, e.BlockFor)
		f = append(f, boolByte(e.DataPresent))
	case bindings.CodeReadFailure:
		f = wire.AppendShort(f, uint16(e.Consistency))
		f = wire.AppendInt(f, e.Received)
		f = wire.AppendInt(f, e.BlockFor)
		f = wire.AppendInt(f, 0) // v5: empty <reasonmap>; v4: <numfailures>
		f = append(f, boolByte(e.DataPresent))
	case bindings.CodeWriteFailure:
		f = wire.AppendShort(f, uint16(e.Consistency))
		f = wire.AppendInt(f, e.Received)
		f = wire.AppendInt(f, e.BlockFor)
		f = wire.AppendInt(f, 0) // v5: empty <reasonmap>; v4: <numfailures>
		f = wire.AppendString(f, writeType(e))
	case bindings.CodeFunctionFail:
		f = wire.AppendString(f, e.Keyspace)
		f = wire.AppendString(f, "")
		f = wire.AppendStringList(f, nil)
	case bindings.CodeAlreadyExists:
		f = wire.AppendString(f, e.Keyspace)
		f = wire.AppendString(f, e.Table)
	case bindings.CodeUnprepared:
		f = wire.AppendShortBytes(f, e.UnpreparedID)
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
