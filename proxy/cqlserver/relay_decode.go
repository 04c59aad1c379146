package cqlserver

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// The relay forwards Cassandra's response bodies unchanged; wire's
// decoders read what the Tap needs, and these turn it into proxy types.

// summarize decodes a response for the Tap.
func summarize(ans bindings.RelayAnswer, withRows bool) proxy.Relayed {
	r := wire.ResponseBody(wire.Header{Flags: ans.Flags, Op: ans.Op}, ans.Body)
	if ans.Op == wire.OpError {
		return proxy.Relayed{Err: errorBody(r.Rest())}
	}
	if ans.Op != wire.OpResult {
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

// relayedError is the Tap's outcome of a relayed request that failed.
func relayedError(err error) proxy.Relayed { return proxy.Relayed{Err: bindings.AsError(err)} }

// errorBody reads an ERROR body: code, message and, for Unprepared, the
// unknown id.
func errorBody(body []byte) *bindings.Error {
	e, err := wire.DecodeError(body)
	if err != nil {
		return &bindings.Error{Code: bindings.CodeProtocolError, Message: "malformed ERROR from Cassandra"}
	}
	return &bindings.Error{Code: bindings.ErrorCode(e.Code), Message: e.Message, UnpreparedID: e.UnpreparedID}
}
