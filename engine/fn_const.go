package engine

// Constant subexpressions of a selection: Cassandra 5.0 computes a
// selector made of terms only (1 / 0, abs((int) ? / 2), the 1 % 0 of
// i + 1 % 0) once per execution, before reading rows, so its failure
// fails the query even when no row is selected, while i / 0 fails only
// on a row. dohyo keeps evaluating them per row (the value is the same)
// and evaluates each once more at the start of an execution for its
// error.

import (
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// impureFunctions are the native functions whose value is not fixed by
// their arguments: never computed ahead.
var impureFunctions = map[string]bool{
	"now": true, "currenttimeuuid": true, "current_timeuuid": true, "currenttimestamp": true,
	"current_timestamp": true, "currentdate": true, "current_date": true, "currenttime": true,
	"current_time": true, "uuid": true,
}

// constSelector reports an operation, cast or native function call over
// terms only.
func (b *planner) constSelector(ti *tableInfo, sl *cql.Selector) bool {
	if sl == nil {
		return false
	}
	switch sl.Kind {
	case cql.SelTerm:
		return true
	case cql.SelOp, cql.SelNeg, cql.SelCast:
	case cql.SelCall:
		name := strings.TrimPrefix(strings.ToLower(sl.Func), "system.")
		if len(sl.Args) == 0 || impureFunctions[name] || b.aggregateCall(ti, sl) || name == "token" ||
			name == "writetime" || name == "ttl" || name == "maxwritetime" {
			return false
		}
		if _, _, udf := b.udfName(strings.ToLower(sl.Func), ti.t.Keyspace); udf {
			return false
		}
	default:
		return false
	}
	for _, a := range sl.Args {
		if !b.constSelector(ti, a) {
			return false
		}
	}
	return true
}

// checkConsts evaluates the selection's constant subexpressions once,
// for the error Cassandra reports before reading rows.
func (s *selection) checkConsts(ti *tableInfo, env *rowEnv) error {
	for _, e := range s.consts {
		if _, err := e.eval(&rowCtx{s: s, ti: ti, env: env}); err != nil {
			return err
		}
	}
	return nil
}
