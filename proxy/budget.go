package proxy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Request budgets: how long a request may run before it is answered with
// a timeout, the way a Cassandra coordinator answers one (ReadTimeout for
// reads, WriteTimeout with the write type for writes). A budget comes from
// configuration (per keyspace, plus a default); a client may tighten it
// for one request (CQL custom payload key BudgetPayloadKey, GraphQL header
// BudgetHeader), never loosen it.
//
// Front ends put the budgets in the request's ctx (WithBudget); a session
// bounds each statement by the budget of the keyspace it routes to, so the
// budget is exact even for statements that rely on the session keyspace.
// An exhausted budget cancels the backend call through its ctx and
// returns a *BudgetError.

// Client budget carriers: the value is a decimal number of milliseconds.
const (
	BudgetPayloadKey = "dohyo-budget-ms"
	BudgetHeader     = "X-Dohyo-Budget-Ms"
)

// Budgets are the configured request deadlines. Zero means no deadline.
type Budgets struct {
	Default   time.Duration
	Keyspaces map[string]time.Duration // overrides of Default
}

// For returns the budget of a request on keyspace.
func (b *Budgets) For(keyspace string) time.Duration {
	if d, ok := b.Keyspaces[keyspace]; ok {
		return d
	}
	return b.Default
}

// PerKeyspace reports whether any keyspace has its own budget.
func (b *Budgets) PerKeyspace() bool { return len(b.Keyspaces) > 0 }

// Max is the longest budget any keyspace gets (0 when one has none): the
// outer bound of a request whose keyspace is not known yet.
func (b *Budgets) Max() time.Duration {
	m := b.Default
	if m == 0 {
		return 0
	}
	for _, d := range b.Keyspaces {
		if d == 0 {
			return 0
		}
		m = max(m, d)
	}
	return m
}

// Tighten returns the shorter of a configured budget and a client's; zero
// means none.
func Tighten(configured, client time.Duration) time.Duration {
	switch {
	case client <= 0:
		return configured
	case configured <= 0:
		return client
	}
	return min(configured, client)
}

// maxClientBudget bounds client budgets (a day: anything longer is a
// mistake, and Duration must not overflow).
const maxClientBudget = 24 * time.Hour

// ParseClientBudget parses a client's budget: a positive decimal number of
// milliseconds.
func ParseClientBudget(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("budget %q is not a positive number of milliseconds", v)
	}
	if ms > int64(maxClientBudget/time.Millisecond) {
		return maxClientBudget, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// ParseKeyspaceBudget parses KEYSPACE=DURATION (configuration).
func ParseKeyspaceBudget(s string) (string, time.Duration, error) {
	ks, dur, ok := strings.Cut(s, "=")
	if !ok || ks == "" || dur == "" {
		return "", 0, fmt.Errorf("%q is not KEYSPACE=DURATION", s)
	}
	d, err := time.ParseDuration(dur)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", s, err)
	}
	if d < 0 {
		return "", 0, errors.New(s + ": negative duration")
	}
	return ks, d, nil
}

type budgetKey struct{}

// Budget is one request's budget, as front ends put it in its ctx.
type Budget struct {
	// Budgets are the configured ones (nil: none).
	Budgets *Budgets
	// Client is the client's own budget (0: none); it only tightens.
	Client time.Duration
	// Start is when the request arrived: budgets count from it.
	Start time.Time
	// Deadline, when set, is the caller's own end of the request (an HTTP
	// request's deadline): no statement runs past it. Reaching it is the
	// caller's deadline, not an exceeded budget (no BudgetError, no
	// OnExceeded). Carrying it here instead of in a derived ctx costs the
	// request nothing beyond the statement's own budget ctx.
	Deadline time.Time
	// OnExceeded, when set, is called with the keyspace of a statement
	// that ran out of budget (metrics).
	OnExceeded func(keyspace string)
}

// WithBudget makes sessions bound every statement run with ctx by the
// budget of its keyspace (schema changes excepted).
func WithBudget(ctx context.Context, b *Budget) context.Context {
	if b.Budgets == nil {
		b.Budgets = &Budgets{}
	}
	return context.WithValue(ctx, budgetKey{}, b)
}

// WithoutBudget removes the budget from ctx (work that outlives its
// request, like GraphQL's @async mutations, has its own bound).
func WithoutBudget(ctx context.Context) context.Context {
	if ctx.Value(budgetKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, budgetKey{}, (*Budget)(nil))
}

// budget bounds ctx by the budget of keyspace, if the request has one;
// cancel is nil when it has none. d is the budget that bounds the call: 0
// when only the caller's Deadline does (or nothing).
func budget(ctx context.Context, stmt cql.Statement, keyspace string) (_ context.Context, cancel context.CancelFunc, d time.Duration) {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	if b == nil || !bounded(stmt) {
		return ctx, nil, 0
	}
	d = Tighten(b.Budgets.For(keyspace), b.Client)
	var end time.Time
	if d > 0 {
		end = b.Start.Add(d)
	}
	if !b.Deadline.IsZero() && (end.IsZero() || b.Deadline.Before(end)) {
		end, d = b.Deadline, 0
	}
	if end.IsZero() {
		return ctx, nil, 0
	}
	bctx, cancel := context.WithDeadline(ctx, end)
	return bctx, cancel, d
}

// bounded tells statements with a budget from schema changes, which have
// none (a half-applied DDL is worse than a slow one).
func bounded(stmt cql.Statement) bool {
	switch stmt.(type) {
	case *cql.Select, *cql.Insert, *cql.Update, *cql.Delete, *cql.Batch, nil:
		return true
	}
	return false
}

// overBudget tells whether a call failed because its own budget ran out
// (not the caller's deadline or cancellation), and reports it.
func overBudget(parent, bctx context.Context, err error, keyspace string) bool {
	if err == nil || !errors.Is(bctx.Err(), context.DeadlineExceeded) || parent.Err() != nil {
		return false
	}
	if b, _ := parent.Value(budgetKey{}).(*Budget); b != nil && b.OnExceeded != nil {
		b.OnExceeded(keyspace)
	}
	return true
}

// BudgetError is a statement that exceeded its budget. It unwraps to the
// timeout answered to the client (a *bindings.Error) and to the cause.
type BudgetError struct {
	Keyspace string
	Budget   time.Duration
	Timeout  *bindings.Error
	Cause    error
}

func (e *BudgetError) Error() string { return e.Timeout.Error() }

// Unwrap returns the timeout first, so errors.As finds it.
func (e *BudgetError) Unwrap() []error { return []error{e.Timeout, e.Cause} }

// TimeoutMessage is the message of a timeout answered for a budget.
func TimeoutMessage(budget time.Duration) string {
	return fmt.Sprintf("Operation timed out - received only 0 responses (dohyo request budget %v)", budget)
}

// TimeoutError is what a Cassandra coordinator answers for a statement
// that ran out of time: ReadTimeout for reads (and statements not known),
// WriteTimeout with the write type drivers' retry policies look at for
// writes. cl and serial are the request's consistency levels.
func TimeoutError(stmt cql.Statement, cl, serial bindings.Consistency, msg string) *bindings.Error {
	switch s := stmt.(type) {
	case *cql.Insert:
		if s.IfNotExists {
			return writeTimeout(serialOr(serial), "CAS", msg)
		}
	case *cql.Update:
		if s.IfExists || len(s.If) > 0 {
			return writeTimeout(serialOr(serial), "CAS", msg)
		}
	case *cql.Delete:
		if s.IfExists || len(s.If) > 0 {
			return writeTimeout(serialOr(serial), "CAS", msg)
		}
	case *cql.Batch:
		return BatchTimeoutError(s.Type, cl, msg)
	case *cql.Select, nil:
		// Unknown statements (evicted prepared id, unparsable text) are
		// most likely reads; a read timeout is the safe answer for retries.
		return &bindings.Error{Code: bindings.CodeReadTimeout, Message: msg, Consistency: cl, BlockFor: blockFor(cl)}
	}
	return writeTimeout(cl, "SIMPLE", msg)
}

// BatchTimeoutError is the WriteTimeout of a batch.
func BatchTimeoutError(t cql.BatchType, cl bindings.Consistency, msg string) *bindings.Error {
	wt := "BATCH"
	switch t {
	case cql.BatchUnlogged:
		wt = "UNLOGGED_BATCH"
	case cql.BatchCounter:
		wt = "COUNTER"
	}
	return writeTimeout(cl, wt, msg)
}

func writeTimeout(cl bindings.Consistency, writeType, msg string) *bindings.Error {
	return &bindings.Error{Code: bindings.CodeWriteTimeout, Message: msg, Consistency: cl,
		BlockFor: blockFor(cl), WriteType: writeType}
}

func serialOr(cl bindings.Consistency) bindings.Consistency {
	if cl == bindings.LocalSerial {
		return cl
	}
	return bindings.Serial
}

// blockFor is the number of replica answers a level waits for. dohyo
// stands for one replica per backend, so every level but TWO and THREE
// waits for one.
func blockFor(cl bindings.Consistency) int32 {
	switch cl {
	case bindings.Two:
		return 2
	case bindings.Three:
		return 3
	}
	return 1
}

// StatementKeyspace returns the keyspace a statement text names itself (a
// qualified table, keyspace DDL, USE); ok is false when it relies on the
// session keyspace or does not parse. Parsed texts are cached.
func (c *Coordinator) StatementKeyspace(query string) (string, bool) {
	p, err := c.parse(query)
	if err != nil {
		return "", false
	}
	ks, err := statementKeyspace(p.Stmt, "")
	return ks, err == nil && ks != ""
}

// Bound bounds ctx by the budget of keyspace for work that does not run
// through a Session (the CQL server's Cassandra relay). After the work,
// exceeded(err) tells whether it failed because that budget ran out (and
// counts it). cancel must be called.
func Bound(ctx context.Context, keyspace string) (bctx context.Context, cancel context.CancelFunc, exceeded func(error) bool) {
	bctx, cancel, d := budget(ctx, nil, keyspace)
	if cancel == nil {
		return ctx, func() {}, func(error) bool { return false }
	}
	return bctx, cancel, func(err error) bool { return d > 0 && overBudget(ctx, bctx, err, keyspace) }
}
