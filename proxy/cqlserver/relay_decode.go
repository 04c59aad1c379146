package cqlserver

import (
	"errors"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// The relay forwards Cassandra's response bodies unchanged; wire's
// decoders read what routing, the prepared registry, schema refresh and
// the Tap need, and these turn it into bindings and proxy types.

// decodeErrorBody reads an ERROR body: code, message and, for Unprepared,
// the unknown id.
func decodeErrorBody(body []byte) *bindings.Error {
	e, err := wire.DecodeError(body)
	if err != nil {
		return &bindings.Error{Code: bindings.CodeProtocolError, Message: "malformed ERROR from Cassandra"}
	}
	return &bindings.Error{Code: bindings.ErrorCode(e.Code), Message: e.Message, UnpreparedID: e.UnpreparedID}
}

// respError is the error an ERROR response reports.
func respError(resp relayResp) *bindings.Error {
	r := wire.ResponseBody(resp.h, resp.body)
	return decodeErrorBody(r.Rest())
}

// summarize decodes a response for the Tap.
func summarize(resp relayResp, withRows bool) proxy.Relayed {
	r := wire.ResponseBody(resp.h, resp.body)
	if resp.h.Op == wire.OpError {
		return proxy.Relayed{Err: decodeErrorBody(r.Rest())}
	}
	if resp.h.Op != wire.OpResult {
		return proxy.Relayed{}
	}
	switch r.Int() {
	case wire.ResultRows:
		out := proxy.Relayed{Kind: bindings.ResultRows}
		if withRows {
			n, digest, more, err := wire.RowsDigest(&r)
			if err == nil {
				out.Rows, out.Digest, out.HasMore = n, digest, more
			}
		}
		return out
	case wire.ResultSetKeyspace:
		return proxy.Relayed{Kind: bindings.ResultSetKeyspace}
	case wire.ResultSchemaChange:
		return proxy.Relayed{Kind: bindings.ResultSchemaChange}
	}
	return proxy.Relayed{Kind: bindings.ResultVoid}
}

// preparedResult returns the id of a RESULT Prepared response and the rest
// of its body, as copies; nil when resp is not one.
func preparedResult(resp relayResp) (id, shape []byte) {
	return wire.PreparedResult(resp.h, resp.body)
}

// schemaChangeOf returns the change a RESULT SchemaChange response (or a
// SCHEMA_CHANGE event body, with event set) reports, or nil.
func schemaChangeOf(resp relayResp, event bool) *bindings.SchemaChange {
	ch, ok := wire.DecodeSchemaChange(resp.h, resp.body, event)
	if !ok {
		return nil
	}
	return &bindings.SchemaChange{Type: bindings.ChangeType(ch.Type), Target: bindings.ChangeTarget(ch.Target),
		Keyspace: ch.Keyspace, Object: ch.Object}
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
