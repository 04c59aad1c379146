package proxy

import "github.com/dohyo/dohyo/cql"

// Idempotence of statements (issue #46). A relayed request whose
// connection to a Cassandra node is lost after it went out may have been
// applied there or not; the relay sends it again to another node only
// when running it twice has the effect of running it once. Drivers leave
// that decision to the application (a statement marked idempotent); dohyo
// reads it from the statement, conservatively, as the Java driver's query
// builder does:
//
//   - reads (SELECT) are idempotent;
//   - INSERT, UPDATE and DELETE are when the request carries a client
//     timestamp (the frame's default timestamp, or USING TIMESTAMP): a
//     second run writes the same cells at the same timestamp, where a
//     server timestamp would be a later one and could overwrite a newer
//     write made in between;
//   - not with a condition (IF, IF EXISTS, IF NOT EXISTS: a second run may
//     answer [applied]=false), an addition or removal (c = c + x, c += x,
//     c = x + c, c = c - x: counters and list appends or prepends; dohyo
//     does not look up the column's type, so set and map additions count
//     too), a list element deleted by index (DELETE l[i]) or a function
//     call among the values (now(), uuid(): a new value each run);
//   - a BATCH is idempotent when every statement in it is and it is not a
//     counter batch;
//   - anything else (schema changes, statements dohyo does not parse) is
//     not.

// StatementIdempotent tells whether stmt may be run twice with the effect
// of once; timestamp says the request carries a client timestamp.
func StatementIdempotent(stmt cql.Statement, timestamp bool) bool {
	switch s := stmt.(type) {
	case *cql.Select:
		return true
	case *cql.Insert:
		return (timestamp || s.Using.Timestamp != nil) && !s.IfNotExists && !hasCall(s.Values...) && !hasCall(s.JSON)
	case *cql.Update:
		if !(timestamp || s.Using.Timestamp != nil) || s.IfExists || len(s.If) > 0 {
			return false
		}
		for _, a := range s.Set {
			switch a.Op {
			case cql.AssignAdd, cql.AssignPrepend, cql.AssignRemove, cql.AssignAddTo, cql.AssignRemoveFrom:
				return false
			}
			if hasCall(a.Key, a.Value) {
				return false
			}
		}
		return true
	case *cql.Delete:
		if !(timestamp || s.Using.Timestamp != nil) || s.IfExists || len(s.If) > 0 {
			return false
		}
		for _, t := range s.Targets {
			if t.Key != nil { // a list index shifts what it names
				return false
			}
		}
		return true
	case *cql.Batch:
		if s.Type == cql.BatchCounter {
			return false
		}
		ts := timestamp || s.Using.Timestamp != nil
		for _, c := range s.Statements {
			if !StatementIdempotent(c, ts) {
				return false
			}
		}
		return true
	}
	return false
}

// hasCall tells whether any of terms is (or holds) a function call.
func hasCall(terms ...cql.Term) bool {
	for _, t := range terms {
		switch v := t.(type) {
		case *cql.FuncCall:
			return true
		case *cql.Cast: // a type hint: (int) ?
			if hasCall(v.Term) {
				return true
			}
		case *cql.CollectionLit:
			if hasCall(v.Values...) || hasCall(v.Keys...) {
				return true
			}
		case *cql.TupleLit:
			if hasCall(v.Elems...) {
				return true
			}
		case *cql.UDTLit:
			if hasCall(v.Values...) {
				return true
			}
		}
	}
	return false
}
