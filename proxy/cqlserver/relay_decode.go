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
	r := &rbuf{b: body}
	e := &bindings.Error{Code: bindings.ErrorCode(r.int_()), Message: r.string_()}
	if e.Code == bindings.CodeUnprepared {
		e.UnpreparedID = r.shortBytes()
	}
	if r.err != nil {
		return &bindings.Error{Code: bindings.CodeProtocolError, Message: "malformed ERROR from Cassandra"}
	}
	return e
}

// Result kinds on the wire.
const (
	wireVoid         = int32(primitive.ResultTypeVoid)
	wireRows         = int32(primitive.ResultTypeRows)
	wireSetKeyspace  = int32(primitive.ResultTypeSetKeyspace)
	wirePrepared     = int32(primitive.ResultTypePrepared)
	wireSchemaChange = int32(primitive.ResultTypeSchemaChange)
)

// responseBody skips what precedes a response's message: a tracing id, a
// warning list and a custom payload, as the header flags announce them.
func responseBody(h header, body []byte) rbuf {
	r := rbuf{b: body}
	if h.flags&flagTracing != 0 {
		r.take(16)
	}
	if h.flags&flagWarning != 0 {
		r.stringList()
	}
	if h.flags&flagCustomPayload != 0 {
		r.bytesMap()
	}
	return r
}

// summarize decodes a response for the Tap.
func summarize(resp relayResp, withRows bool) proxy.Relayed {
	r := responseBody(resp.h, resp.body)
	if resp.h.op == opError {
		return proxy.Relayed{Err: decodeErrorBody(r.b)}
	}
	if resp.h.op != opResult {
		return proxy.Relayed{}
	}
	switch r.int_() {
	case wireRows:
		out := proxy.Relayed{Kind: bindings.ResultRows}
		if withRows {
			rows, more, err := decodeRows(&r)
			if err == nil {
				out.Rows, out.Digest, out.HasMore = len(rows), bindings.RowsDigest(rows), more
			}
		}
		return out
	case wireSetKeyspace:
		return proxy.Relayed{Kind: bindings.ResultSetKeyspace}
	case wireSchemaChange:
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

// decodeRows reads a Rows result's metadata and cells (slices of the body).
func decodeRows(r *rbuf) ([][][]byte, bool, error) {
	flags := r.int_()
	cols := int(r.int_())
	more := flags&rmHasMore != 0
	if more {
		r.bytes_()
	}
	if flags&rmMetadataChg != 0 {
		r.shortBytes()
	}
	if flags&rmNoMetadata == 0 {
		if flags&rmGlobalSpec != 0 {
			r.string_()
			r.string_()
		}
		for i := 0; i < cols && r.err == nil; i++ {
			if flags&rmGlobalSpec == 0 {
				r.string_()
				r.string_()
			}
			r.string_()
			skipOption(r, 0)
		}
	}
	n := int(r.int_())
	if r.err != nil || cols < 0 || n < 0 || n*cols*4 > len(r.b) {
		return nil, false, fmt.Errorf("malformed rows result")
	}
	rows := make([][][]byte, n)
	for i := range rows {
		row := make([][]byte, cols)
		for j := range row {
			row[j] = r.bytes_()
		}
		rows[i] = row
	}
	return rows, more, r.err
}

// skipOption skips a type [option], recursing into collection, UDT and
// tuple parameters.
func skipOption(r *rbuf, depth int) {
	if depth > 32 {
		r.fail(fmt.Errorf("type nesting too deep"))
		return
	}
	switch id := r.short(); id {
	case uint16(primitive.DataTypeCodeCustom):
		r.string_()
	case uint16(primitive.DataTypeCodeList), uint16(primitive.DataTypeCodeSet):
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeMap):
		skipOption(r, depth+1)
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeUdt):
		r.string_()
		r.string_()
		n := int(r.short())
		for i := 0; i < n && r.err == nil; i++ {
			r.string_()
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
	if resp.h.op != opResult {
		return nil, nil
	}
	r := responseBody(resp.h, resp.body)
	if r.int_() != wirePrepared {
		return nil, nil
	}
	id = r.shortBytes()
	if r.err != nil {
		return nil, nil
	}
	return append([]byte(nil), id...), append([]byte{}, r.b...)
}

// schemaChangeOf returns the change a RESULT SchemaChange response (or a
// SCHEMA_CHANGE event body, with event set) reports, or nil.
func schemaChangeOf(resp relayResp, event bool) *bindings.SchemaChange {
	r := responseBody(resp.h, resp.body)
	if event {
		if r.string_() != string(primitive.EventTypeSchemaChange) {
			return nil
		}
	} else if resp.h.op != opResult || r.int_() != wireSchemaChange {
		return nil
	}
	ch := &bindings.SchemaChange{Type: bindings.ChangeType(r.string_()), Target: bindings.ChangeTarget(r.string_())}
	ch.Keyspace = r.string_()
	switch ch.Target {
	case bindings.TargetKeyspace:
	case bindings.TargetTable, bindings.TargetType:
		ch.Object = r.string_()
	default: // functions and aggregates: not re-encoded by dohyo
		ch.Object = r.string_()
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
