package hbase

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsuna/gohbase"

	"github.com/dohyo/dohyo/bindings"
)

// ErrClosed is returned by operations on a closed Store.
var ErrClosed = errors.New("hbase: store closed")

// unavailableError reports that HBase did not answer in time: gohbase keeps
// retrying region lookups and connections until the call's deadline, so a
// deadline is how an unreachable cluster shows. It is a CQL Unavailable
// (errors.As finds the *bindings.Error), a broken backend connection
// (errors.Is(err, bindings.ErrBadConn)) and the context error.
type unavailableError struct {
	cql   *bindings.Error
	cause error
}

func (e *unavailableError) Error() string { return e.cql.Message }

func (e *unavailableError) Unwrap() []error {
	return []error{e.cql, bindings.ErrBadConn, e.cause}
}

// opCtx derives the context of one HBase call: the caller's, bounded by
// timeout.
func opCtx(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= timeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// oneRPCCtx is opCtx for a call that waits for a single RPC: nothing of it
// is left in flight to cancel when it returns, so when the caller's
// deadline is within timeout it runs on the caller's context itself (a
// point read or write then derives no context: a cancelCtx, its
// registration with the parent and its removal, per request).
func oneRPCCtx(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= timeout {
		return ctx, noCancel
	}
	return context.WithTimeout(ctx, timeout)
}

func noCancel() {}

// wrapErr gives an HBase error its layer prefix and its meaning for the
// proxy. caller is the context the caller passed in.
func (s *Store) wrapErr(caller context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if s.closed.Load() || errors.Is(err, gohbase.ErrClientClosed) {
		return fmt.Errorf("hbase: %s: %w", op, ErrClosed)
	}
	if errors.Is(caller.Err(), context.Canceled) {
		// The caller went away; nothing to report about HBase.
		return fmt.Errorf("hbase: %s: %w", op, caller.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(caller.Err(), context.DeadlineExceeded) {
		return &unavailableError{
			cql: bindings.Errorf(bindings.CodeUnavailable,
				"hbase: %s: no answer from HBase (ZooKeeper %s) in time; is the cluster up?", op, s.zk),
			cause: context.DeadlineExceeded,
		}
	}
	if errors.Is(err, gohbase.TableNotFound) || isJava(err, excTableNotFound) {
		return fmt.Errorf("hbase: %s: table does not exist in HBase: %w", op, err)
	}
	return fmt.Errorf("hbase: %s: %w", op, err)
}
