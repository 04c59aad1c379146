package cqlserver

import (
	"errors"
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
)

// The relay forwards Cassandra's response bodies unchanged; these decoders
// read only what routing, the prepared registry, schema refresh and the Tap
// need: error codes, prepared ids, schema changes and a digest of rows.

// decodeErrorBody reads an ERROR body: code, message and, for Unprepared,
// the unknown id.
func decodeErrorBody(body []byte) *bindings.Error {
	r := &Reader{b: body}
	e := &bindings.Error{Code: bindings.ErrorCode(r.Int()), Message: r.Str()}
	if e.Code == bindings.CodeUnprepared {
		e.UnpreparedID = r.ShortBytes()
	}
	if r.err != nil {
		return &bindings.Error{Code: bindings.CodeProtocolError, Message: "malformed ERROR from Cassandra"}
	}
	return e
}

// Result kinds on the wire.
const (
	ResultVoid         = int32(primitive.ResultTypeVoid)
	ResultRows         = int32(primitive.ResultTypeRows)
	ResultSetKeyspace  = int32(primitive.ResultTypeSetKeyspace)
	ResultPrepared     = int32(primitive.ResultTypePrepared)
	ResultSchemaChange = int32(primitive.ResultTypeSchemaChange)
)

// ResponseBody skips what precedes a response's message: a tracing id, a
// warning list and a custom payload, as the header flags announce them.
func ResponseBody(h Header, body []byte) Reader {
	r := Reader{b: body}
	if h.Flags&FlagTracing != 0 {
		r.take(16)
	}
	if h.Flags&FlagWarning != 0 {
		r.StringList()
	}
	if h.Flags&FlagCustomPayload != 0 {
		r.BytesMap()
	}
	return r
}

// summarize decodes a response for the Tap.
func summarize(resp relayResp, withRows bool) proxy.Relayed {
	r := ResponseBody(resp.h, resp.body)
	if resp.h.Op == OpError {
		return proxy.Relayed{Err: decodeErrorBody(r.b)}
	}
	if resp.h.Op != OpResult {
		return proxy.Relayed{}
	}
	switch r.Int() {
	case ResultRows:
		out := proxy.Relayed{Kind: bindings.ResultRows}
		if withRows {
			rows, more, err := DecodeRows(&r)
			if err == nil {
				out.Rows, out.Digest, out.HasMore = len(rows), bindings.RowsDigest(rows), more
			}
		}
		return out
	case ResultSetKeyspace:
		return proxy.Relayed{Kind: bindings.ResultSetKeyspace}
	case ResultSchemaChange:
		return proxy.Relayed{Kind: bindings.ResultSchemaChange}
	}
	return proxy.Relayed{Kind: bindings.ResultVoid}
}

// Rows metadata flags (native_protocol_v5.spec §4.2.5.2).
const (
	rmGlobalSpec  = 0x0001
	rmHasMore     = 0x0002
	rmNoMetadata  = 0x0004
	rmMetadataChg = 0x0008
)

// DecodeRows reads a Rows result's metadata and cells (slices of the body).
func DecodeRows(r *Reader) ([][][]byte, bool, error) {
	flags := r.Int()
	cols := int(r.Int())
	more := flags&rmHasMore != 0
	if more {
		r.Bytes()
	}
	if flags&rmMetadataChg != 0 {
		r.ShortBytes()
	}
	if flags&rmNoMetadata == 0 {
		if flags&rmGlobalSpec != 0 {
			r.Str()
			r.Str()
		}
		for i := 0; i < cols && r.err == nil; i++ {
			if flags&rmGlobalSpec == 0 {
				r.Str()
				r.Str()
			}
			r.Str()
			skipOption(r, 0)
		}
	}
	n := int(r.Int())
	if r.err != nil || cols < 0 || n < 0 || n*cols*4 > len(r.b) {
		return nil, false, fmt.Errorf("malformed rows result")
	}
	rows := make([][][]byte, n)
	for i := range rows {
		row := make([][]byte, cols)
		for j := range row {
			row[j] = r.Bytes()
		}
		rows[i] = row
	}
	return rows, more, r.err
}

// skipOption skips a type [option], recursing into collection, UDT and
// tuple parameters.
func skipOption(r *Reader, depth int) {
	if depth > 32 {
		r.fail(fmt.Errorf("type nesting too deep"))
		return
	}
	switch id := r.short(); id {
	case uint16(primitive.DataTypeCodeCustom):
		r.Str()
	case uint16(primitive.DataTypeCodeList), uint16(primitive.DataTypeCodeSet):
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeMap):
		skipOption(r, depth+1)
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeUdt):
		r.Str()
		r.Str()
		n := int(r.short())
		for i := 0; i < n && r.err == nil; i++ {
			r.Str()
			skipOption(r, depth+1)
		}
	case uint16(primitive.DataTypeCodeTuple):
		n := int(r.short())
		for i := 0; i < n && r.err == nil; i++ {
			skipOption(r, depth+1)
		}
	}
}

// preparedResult returns the id of a RESULT Prepared response and the rest
// of its body (the statement's metadata, compared on re-prepare), as
// copies; nil when resp is not one.
func preparedResult(resp relayResp) (id, shape []byte) {
	if resp.h.Op != OpResult {
		return nil, nil
	}
	r := ResponseBody(resp.h, resp.body)
	if r.Int() != ResultPrepared {
		return nil, nil
	}
	id = r.ShortBytes()
	if r.err != nil {
		return nil, nil
	}
	return append([]byte(nil), id...), append([]byte{}, r.b...)
}

// schemaChangeOf returns the change a RESULT SchemaChange response (or a
// SCHEMA_CHANGE event body, with event set) reports, or nil.
func schemaChangeOf(resp relayResp, event bool) *bindings.SchemaChange {
	r := ResponseBody(resp.h, resp.body)
	if event {
		if r.Str() != string(primitive.EventTypeSchemaChange) {
			return nil
		}
	} else if resp.h.Op != OpResult || r.Int() != ResultSchemaChange {
		return nil
	}
	ch := &bindings.SchemaChange{Type: bindings.ChangeType(r.Str()), Target: bindings.ChangeTarget(r.Str())}
	ch.Keyspace = r.Str()
	switch ch.Target {
	case bindings.TargetKeyspace:
	case bindings.TargetTable, bindings.TargetType:
		ch.Object = r.Str()
	default: // functions and aggregates: not re-encoded by dohyo
		ch.Object = r.Str()
	}
	if r.err != nil {
		return nil
	}
	return ch
}

func asCQLError(err error) *bindings.Error {
	var be *bindings.Error
	if errors.As(err, &be) {
		return be
	}
	return nil
}

func isAuthFailure(code bindings.ErrorCode) bool {
	return code == bindings.CodeAuthError || code == bindings.CodeUnauthorized
}

// relayedError is the Tap's outcome of a relayed request that failed.
func relayedError(err error) proxy.Relayed { return proxy.Relayed{Err: bindings.AsError(err)} }
