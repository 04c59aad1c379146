package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
)

// Operation names.
const (
	OpRead    = "read"
	OpWrite   = "write"
	OpLWT     = "lwt"
	OpCounter = "counter"
)

// keyspace is one driven keyspace: its statements and ledger.
type keyspace struct {
	name                       string
	insert, read, cas, counter string
	payload                    []byte
	ledger                     ledger
}

func newKeyspace(name string, valueSize int) *keyspace {
	return &keyspace{
		name:    name,
		insert:  fmt.Sprintf("INSERT INTO %s.soak_rows (k, v, p) VALUES (?, ?, ?) USING TIMESTAMP ?", name),
		read:    fmt.Sprintf("SELECT v FROM %s.soak_rows WHERE k = ?", name),
		cas:     fmt.Sprintf("UPDATE %s.soak_lwt SET v = ? WHERE k = ? IF v = ?", name),
		counter: fmt.Sprintf("UPDATE %s.soak_counters SET c = c + 1 WHERE k = ?", name),
		payload: []byte(strings.Repeat("s", valueSize)),
	}
}

// setup creates the keyspace (if missing) and the tables, and seeds the
// LWT keys at 0. Existing soak tables are truncated: a run's read-back
// checks this run's writes.
func (k *keyspace) setup(ctx context.Context, s *gocql.Session, rf int) error {
	stmts := []string{
		fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", k.name, rf),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.soak_rows (k bigint PRIMARY KEY, v bigint, p blob)", k.name),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.soak_counters (k int PRIMARY KEY, c counter)", k.name),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.soak_lwt (k int PRIMARY KEY, v bigint)", k.name),
		fmt.Sprintf("TRUNCATE %s.soak_rows", k.name),
		fmt.Sprintf("TRUNCATE %s.soak_counters", k.name),
		fmt.Sprintf("TRUNCATE %s.soak_lwt", k.name),
	}
	for _, q := range stmts {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("soak setup on keyspace %s: %q: %w", k.name, q, err)
		}
	}
	for i := range lwtKeys {
		q := fmt.Sprintf("INSERT INTO %s.soak_lwt (k, v) VALUES (?, 0)", k.name)
		if err := s.Query(q, i).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("soak setup on keyspace %s: seed LWT key %d: %w", k.name, i, err)
		}
	}
	return nil
}

// pickOp draws an operation by the mix's weights.
func pickOp(m Mix, r *rand.Rand) string {
	x := r.Float64() * (m.Read + m.Write + m.LWT + m.Counter)
	switch {
	case x < m.Read:
		return OpRead
	case x < m.Read+m.Write:
		return OpWrite
	case x < m.Read+m.Write+m.LWT:
		return OpLWT
	}
	return OpCounter
}

// outcome of one request.
type outcome struct {
	err   error
	stale bool // a read did not see an acknowledged write
}

// do runs one operation and records what it learnt in the ledger. A read
// with no acknowledged write yet becomes a write.
func (k *keyspace) do(ctx context.Context, s *gocql.Session, op string, r *rand.Rand) (string, outcome) {
	l := &k.ledger
	if op == OpRead {
		key, ok := l.pick(r.Uint64())
		if !ok {
			op = OpWrite
		} else {
			var v int64
			err := s.Query(k.read, key).WithContext(ctx).Idempotent(true).Scan(&v)
			if errors.Is(err, gocql.ErrNotFound) || (err == nil && v != rowValue(key)) {
				return op, outcome{stale: true}
			}
			return op, outcome{err: err}
		}
	}
	switch op {
	case OpWrite:
		key := l.next.Add(1) - 1
		err := s.Query(k.insert, key, rowValue(key), k.payload, time.Now().UnixMicro()).WithContext(ctx).Idempotent(true).Exec()
		if err == nil {
			l.ack(key)
		}
		return op, outcome{err: err}
	case OpCounter:
		key := r.IntN(counterKeys)
		err := s.Query(k.counter, key).WithContext(ctx).Exec()
		l.counter(key, err == nil)
		return op, outcome{err: err}
	default: // OpLWT
		key, release, ok := l.claimLWT(r.IntN(lwtKeys))
		if !ok { // every key has a CAS in flight: a write instead
			return k.do(ctx, s, OpWrite, r)
		}
		defer release()
		guess := l.lwtGuess(key)
		var seen int64
		applied, err := s.Query(k.cas, guess+1, key, guess).WithContext(ctx).ScanCAS(&seen)
		l.lwtResult(key, guess, applied, seen, err)
		return op, outcome{err: err}
	}
}

// ErrorClass names an error for the report: the protocol error's name for
// server errors, "client timeout" for a request past its deadline, else
// the error's text up to its first colon.
func ErrorClass(err error) string {
	var re gocql.RequestError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return bindings.ErrorCode(re.Code()).String()
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "client timeout"
	case errors.Is(err, gocql.ErrNoConnections):
		return "no connections"
	case errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return "connection lost"
	}
	s := err.Error()
	if strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe") || strings.HasSuffix(s, "EOF") {
		return "connection lost" // a driver that flattened the error to text
	}
	if i := strings.Index(s, ":"); i > 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}
