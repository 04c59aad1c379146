package cqlserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Request timeouts (Config.RequestTimeout). A request that runs out of time
// is answered the way a Cassandra coordinator answers one: ReadTimeout for
// reads, WriteTimeout for writes (with the write type drivers' retry
// policies look at), so that drivers apply their usual retry decisions
// instead of waiting for their own client-side timeout.

// timeoutFor returns the deadline of a request: schema changes and PREPARE
// have none (a half-applied DDL is worse than a slow one).
func (s *Server) timeoutFor(req *request) time.Duration {
	switch req.op {
	case opPrepare:
		return 0
	case opQuery:
		if isSchemaStatement(req.query) {
			return 0
		}
	}
	return s.cfg.RequestTimeout
}

// isSchemaStatement tells DDL from other statements by its first keyword.
func isSchemaStatement(query string) bool {
	switch firstKeyword(query) {
	case "create", "alter", "drop", "truncate", "grant", "revoke":
		return true
	}
	return false
}

// firstKeyword returns the first word of a statement, lower-cased, skipping
// white space and comments.
func firstKeyword(q string) string {
	for i := 0; i < len(q); {
		switch ch := q[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
			i++
		case strings.HasPrefix(q[i:], "--") || strings.HasPrefix(q[i:], "//"):
			nl := strings.IndexByte(q[i:], '\n')
			if nl < 0 {
				return ""
			}
			i += nl + 1
		case strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return ""
			}
			i += end + 4
		default:
			j := i
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z') {
				j++
			}
			return strings.ToLower(q[i:j])
		}
	}
	return ""
}

// timeoutError builds the error for a request that exceeded RequestTimeout.
func (c *conn) timeoutError(req *request) error {
	consistency := req.params.consistency
	var stmt cql.Statement
	switch req.op {
	case opBatch:
		consistency = req.batch.Consistency
		wt := "BATCH"
		switch req.batch.Type {
		case cql.BatchUnlogged:
			wt = "UNLOGGED_BATCH"
		case cql.BatchCounter:
			wt = "COUNTER"
		}
		return c.writeTimeout(consistency, wt)
	case opExecute:
		if ps, err := c.srv.coord.Lookup(req.id); err == nil {
			stmt = ps.Parsed.Stmt
		}
	case opQuery:
		// Parsing again costs nothing that matters on this rare path.
		if p, err := cql.Parse(req.query); err == nil {
			stmt = p.Stmt
		}
	}
	switch s := stmt.(type) {
	case *cql.Insert:
		if s.IfNotExists {
			return c.writeTimeout(serialOr(req.params.serial), "CAS")
		}
		return c.writeTimeout(consistency, "SIMPLE")
	case *cql.Update:
		if s.IfExists || len(s.If) > 0 {
			return c.writeTimeout(serialOr(req.params.serial), "CAS")
		}
		return c.writeTimeout(consistency, "SIMPLE")
	case *cql.Delete:
		if s.IfExists || len(s.If) > 0 {
			return c.writeTimeout(serialOr(req.params.serial), "CAS")
		}
		return c.writeTimeout(consistency, "SIMPLE")
	case *cql.Batch:
		wt := "BATCH"
		if s.Type == cql.BatchUnlogged {
			wt = "UNLOGGED_BATCH"
		} else if s.Type == cql.BatchCounter {
			wt = "COUNTER"
		}
		return c.writeTimeout(consistency, wt)
	case *cql.Select, nil:
		// Unknown statements (evicted prepared id, unparsable text) are
		// most likely reads; a read timeout is the safe answer for retries.
	default:
		return c.writeTimeout(consistency, "SIMPLE")
	}
	return &bindings.Error{
		Code:        bindings.CodeReadTimeout,
		Message:     c.timeoutMessage(),
		Consistency: consistency,
		Received:    0,
		BlockFor:    blockFor(consistency),
	}
}

func (c *conn) writeTimeout(cl bindings.Consistency, writeType string) *bindings.Error {
	return &bindings.Error{
		Code:        bindings.CodeWriteTimeout,
		Message:     c.timeoutMessage(),
		Consistency: cl,
		Received:    0,
		BlockFor:    blockFor(cl),
		WriteType:   writeType,
	}
}

func (c *conn) timeoutMessage() string {
	return fmt.Sprintf("Operation timed out - received only 0 responses (dohyo request timeout %v)", c.srv.cfg.RequestTimeout)
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
