package engine

import (
	"context"
	"sync/atomic"

	"github.com/dohyo/dohyo/cql"
)

// stmtKind is what executing a prepared statement takes.
type stmtKind uint8

const (
	// stmtPlanned statements (SELECT, INSERT, UPDATE, DELETE, BEGIN BATCH)
	// run their plan.
	stmtPlanned stmtKind = iota
	// stmtOther statements (USE, DDL) run from their parsed form.
	stmtOther
)

// preparedStmt is the engine's form of a prepared statement, the
// bindings.Prepared.Handle its Prepare returns: the coordinator keeps it
// and passes it back with every EXECUTE, so an execution finds its plan
// without a lookup by text. It is valid for the engine that prepared it
// and the session keyspace it was prepared in; its plan is rebuilt when
// the engine's schema state is no longer the one it was built against.
type preparedStmt struct {
	e      *Engine
	ks     string      // the session keyspace at PREPARE
	parsed *cql.Parsed // the engine's parse of the text
	kind   stmtKind
	// cp is the plan (with its schema state, bind specs and result
	// metadata) of a stmtPlanned statement; replaced when stale.
	cp atomic.Pointer[cachedPlan]
}

// handleFor returns v as e's prepared statement when it is one e made
// for session keyspace ks, nil otherwise (no handle, another backend's or
// another engine's, or prepared in another keyspace: plan from the text).
func (e *Engine) handleFor(v any, ks string) *preparedStmt {
	h, _ := v.(*preparedStmt)
	if h == nil || h.e != e || h.ks != ks {
		return nil
	}
	return h
}

// plan returns the statement's plan for the engine's current schema
// state, re-planning (and keeping the new plan) after a schema change.
func (h *preparedStmt) plan(ctx context.Context) (*cachedPlan, error) {
	e := h.e
	if cp := h.cp.Load(); cp != nil && cp.st == e.st.Load() {
		return cp, nil
	}
	cp, err := retryFresh(ctx, e, func() (*cachedPlan, error) { return e.newPlan(h.ks, h.parsed) })
	if err != nil {
		return nil, err
	}
	h.cp.Store(cp)
	return cp, nil
}
