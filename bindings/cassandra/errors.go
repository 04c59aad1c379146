package cassandra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
)

// opKind says what a timed-out request was, to pick the timeout error a
// Cassandra coordinator would have sent.
type opKind struct {
	read      bool   // SELECT: ReadTimeout
	writeType string // otherwise WriteTimeout with this write type
}

var (
	opRead   = opKind{read: true}
	opSimple = opKind{writeType: "SIMPLE"}
)

// timeoutError is the CQL error for a request the client gave up on.
func timeoutError(op opKind, cl bindings.Consistency) *bindings.Error {
	e := &bindings.Error{Message: "Operation timed out - received only 0 responses (client deadline)",
		Consistency: cl, BlockFor: 1}
	if op.read {
		e.Code = bindings.CodeReadTimeout
		return e
	}
	e.Code, e.WriteType = bindings.CodeWriteTimeout, op.writeType
	return e
}

// convertError turns a gocql or native-client failure into a CQL error with
// Cassandra's code and message (and the code-specific fields). Deadlines
// become timeouts; a Cassandra that cannot be reached (no connection, a
// refused dial) becomes Unavailable and a lost connection ServerError, both
// wrapping bindings.ErrBadConn; cancellation stays the context's error.
func convertError(ctx context.Context, err error, op opKind, cl bindings.Consistency) error {
	if err == nil {
		return nil
	}
	var be *bindings.Error
	if errors.As(err, &be) {
		if errors.Is(err, bindings.ErrBadConn) {
			return err
		}
		return be
	}
	if errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("cassandra: %w", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, gocql.ErrTimeoutNoResponse) {
		return timeoutError(op, cl)
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		return requestError(re)
	}
	if errors.Is(err, gocql.ErrQueryArgLength) {
		return bindings.Errorf(bindings.CodeInvalid, "%s", err.Error())
	}
	if unreachable(err) {
		return fmt.Errorf("%w: %w", bindings.ErrBadConn, unavailable(cl, "cassandra unreachable: %s", strings.TrimPrefix(err.Error(), "gocql: ")))
	}
	var ne net.Error
	if errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrConnectionClosed) ||
		errors.Is(err, gocql.ErrSessionClosed) || errors.Is(err, gocql.ErrNoConnectionsStarted) ||
		errors.Is(err, gocql.ErrNoStreams) || errors.Is(err, gocql.ErrTooManyTimeouts) ||
		errors.Is(err, bindings.ErrBadConn) || errors.As(err, &ne) {
		return fmt.Errorf("%w: %w", bindings.ErrBadConn,
			bindings.Errorf(bindings.CodeServerError, "cassandra: %s", strings.TrimPrefix(err.Error(), "gocql: ")))
	}
	return bindings.Errorf(bindings.CodeServerError, "cassandra: %s", strings.TrimPrefix(err.Error(), "gocql: "))
}

// unreachable reports whether err says no Cassandra node could be reached
// at all: nothing was sent, the client may try elsewhere.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrNoConnectionsStarted) ||
		(errors.As(err, &op) && op.Op == "dial")
}

// unavailable is Cassandra's Unavailable error at consistency cl, none of
// the replicas alive.
func unavailable(cl bindings.Consistency, format string, args ...any) *bindings.Error {
	e := bindings.Errorf(bindings.CodeUnavailable, format, args...)
	e.Consistency = cl
	return e
}

// requestError converts an ERROR response decoded by gocql.
func requestError(re gocql.RequestError) *bindings.Error {
	e := &bindings.Error{Code: bindings.ErrorCode(re.Code()), Message: re.Message()}
	switch x := re.(type) {
	case *gocql.RequestErrUnavailable:
		e.Consistency, e.BlockFor, e.Received = bindings.Consistency(x.Consistency), int32(x.Required), int32(x.Alive)
	case *gocql.RequestErrWriteTimeout:
		e.Consistency, e.Received, e.BlockFor, e.WriteType = bindings.Consistency(x.Consistency), int32(x.Received), int32(x.BlockFor), x.WriteType
	case *gocql.RequestErrReadTimeout:
		e.Consistency, e.Received, e.BlockFor, e.DataPresent = bindings.Consistency(x.Consistency), int32(x.Received), int32(x.BlockFor), x.DataPresent != 0
	case *gocql.RequestErrReadFailure:
		e.Consistency, e.Received, e.BlockFor, e.DataPresent = bindings.Consistency(x.Consistency), int32(x.Received), int32(x.BlockFor), x.DataPresent
	case *gocql.RequestErrWriteFailure:
		e.Consistency, e.Received, e.BlockFor, e.WriteType = bindings.Consistency(x.Consistency), int32(x.Received), int32(x.BlockFor), x.WriteType
	case *gocql.RequestErrCASWriteUnknown:
		e.Consistency, e.Received, e.BlockFor = bindings.Consistency(x.Consistency), int32(x.Received), int32(x.BlockFor)
	case *gocql.RequestErrAlreadyExists:
		e.Keyspace, e.Table = x.Keyspace, x.Table
	case *gocql.RequestErrUnprepared:
		e.UnpreparedID = x.StatementId
	case *gocql.RequestErrFunctionFailure:
		e.Keyspace = x.Keyspace
	}
	return e
}

// isArgCountError reports gocql's own check that the values match the
// prepared markers. gocql counts a tuple marker as one value per element,
// so such statements (and genuinely wrong counts, which Cassandra then
// reports itself) go through the native client instead.
func isArgCountError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "gocql: expected ") && strings.Contains(msg, " values send got ") ||
		strings.HasPrefix(msg, "gocql: batch statement ") && strings.Contains(msg, " values send got ")
}
