package relay

import (
	"errors"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// The relay forwards Cassandra's response bodies unchanged; wire's
// decoders read what the prepared registry and schema refresh need, and
// these turn it into bindings types.

// decodeErrorBody reads an ERROR body: code, message and, for Unprepared,
// the unknown id.
func decodeErrorBody(body []byte) *bindings.Error {
	e, err := wire.DecodeError(body)
	if err != nil {
		return &bindings.Error{Code: bindings.CodeProtocolError, Message: "malformed ERROR from Cassandra"}
	}
	return &bindings.Error{Code: bindings.ErrorCode(e.Code), Message: e.Message, UnpreparedID: e.UnpreparedID}
}

// Err is the error an ERROR response reports (a response of another
// opcode reports a protocol error).
func (resp Response) Err() *bindings.Error {
	r := wire.ResponseBody(resp.Header, resp.Body)
	return decodeErrorBody(r.Rest())
}

// refusedUnrun reports an ERROR answer by which a node refused a request
// before running it, so that another node may take it: IsBootstrapping (a
// joining node runs nothing), any request; Overloaded (Cassandra answers
// it before processing: "Server is shutting down" while a node drains,
// native-transport rate limits), the requests dohyo can tell are
// idempotent, as the Java driver's default policy re-sends them.
func refusedUnrun(resp Response, idempotent bool) bool {
	if resp.Header.Op != wire.OpError {
		return false
	}
	switch resp.Err().Code {
	case bindings.CodeBootstrapping:
		return true
	case bindings.CodeOverloaded:
		return idempotent
	}
	return false
}

// preparedResult returns the id of a RESULT Prepared response and the rest
// of its body, as copies; nil when resp is not one.
func preparedResult(resp Response) (id, shape []byte) {
	return wire.PreparedResult(resp.Header, resp.Body)
}

// schemaChangeOf returns the change a RESULT SchemaChange response (or a
// SCHEMA_CHANGE event body, with event set) reports, or nil.
func schemaChangeOf(resp Response, event bool) *bindings.SchemaChange {
	ch, ok := wire.DecodeSchemaChange(resp.Header, resp.Body, event)
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
