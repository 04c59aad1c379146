package engine

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// batchPlan is a parsed BEGIN ... APPLY BATCH: its children share the
// statement's bound values.
type batchPlan struct {
	typ      cql.BatchType
	children []*modPlan
	using    usingPlan
}

func (b *planner) planBatch(s *cql.Batch) (plan, error) {
	bp := &batchPlan{typ: s.Type}
	if s.Using.TTL != nil {
		return nil, invalidf("Global TTL on the BATCH statement is not supported.")
	}
	for _, st := range s.Statements {
		var pl plan
		var err error
		switch c := st.(type) {
		case *cql.Insert:
			pl, err = b.planInsert(c)
		case *cql.Update:
			pl, err = b.planUpdate(c)
		case *cql.Delete:
			pl, err = b.planDelete(c)
		default:
			return nil, invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		}
		if err != nil {
			return nil, err
		}
		bp.children = append(bp.children, pl.(*modPlan))
	}
	// Marker specs of the batch-level USING refer to no table.
	if len(bp.children) > 0 {
		bp.using = b.planUsing(bp.children[0].ti, s.Using)
	}
	b.pkBind = nil
	b.result = nil
	return bp, nil
}

func (bp *batchPlan) execute(ctx context.Context, x *execCtx) (*bindings.Result, error) {
	xs := make([]*execCtx, len(bp.children))
	for i := range xs {
		c := *x
		xs[i] = &c
	}
	if bp.using.ts != nil {
		if len(bp.children) == 0 {
			return &bindings.Result{Kind: bindings.ResultVoid}, nil
		}
		b, unset, err := x.eval(cql.Scalar(cql.KindBigint), bp.using.ts, "[timestamp]")
		if err != nil {
			return nil, err
		}
		if !unset {
			if b == nil {
				return nil, invalidf("Invalid null value of timestamp")
			}
			for _, c := range xs {
				c.ts, c.hasTS = int64(be64u(b)), true
			}
			for _, c := range bp.children {
				if c.using.ts != nil {
					return nil, invalidf("Timestamp must be set either on BATCH or individual statements")
				}
			}
		}
	}
	return x.e.runBatch(ctx, bp.typ, bp.children, xs, bp.using.ts != nil)
}

// Batch runs a protocol BATCH message.
func (e *Engine) Batch(ctx context.Context, req *bindings.BatchRequest) (res *bindings.Result, err error) {
	defer e.recoverTo(&err, "BATCH")
	res, err = e.batch(ctx, req)
	if err != nil {
		return nil, cqlError(err)
	}
	return res, nil
}

func (e *Engine) batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	if e.closed.Load() {
		return nil, bindings.Errorf(bindings.CodeServerError, "engine is closed")
	}
	children := make([]*modPlan, 0, len(req.Entries))
	xs := make([]*execCtx, 0, len(req.Entries))
	for i := range req.Entries {
		ent := &req.Entries[i]
		cp, err := e.batchChildPlan(ctx, req.Keyspace, ent)
		if err != nil {
			return nil, err
		}
		x, err := newExecCtx(e, cp, ent.Values, ent.Names)
		if err != nil {
			return nil, err
		}
		if req.HasTimestamp {
			x.ts, x.hasTS = req.Timestamp, true
		}
		children = append(children, cp.plan.(*modPlan))
		xs = append(xs, x)
	}
	return e.runBatch(ctx, req.Type, children, xs, false)
}

// batchChildPlan returns the plan of a batch child: its handle's when it
// has a valid one (a prepared child), else planned from its text.
func (e *Engine) batchChildPlan(ctx context.Context, ks string, ent *bindings.BatchEntry) (*cachedPlan, error) {
	h := e.handleFor(ent.Handle, ks)
	var p *cql.Parsed
	if h != nil {
		p = h.parsed
	} else {
		var err error
		if p, err = e.parse(ent.Query, ent.Parsed); err != nil {
			return nil, err
		}
	}
	switch p.Stmt.(type) {
	case *cql.Insert, *cql.Update, *cql.Delete:
	default:
		return nil, invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
	}
	if h != nil {
		return h.plan(ctx)
	}
	return e.planFor(ctx, ks, ent.Query, p)
}

// runBatch applies a batch: validation of counter/non-counter mixing, one
// timestamp for every child without its own, one KV.Apply; conditional
// batches go through executeCAS on their single partition.
func (e *Engine) runBatch(ctx context.Context, typ cql.BatchType, children []*modPlan, xs []*execCtx, batchTS bool) (*bindings.Result, error) {
	if len(children) == 0 {
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	hasCounter, hasOther, conditional := false, false, false
	for _, c := range children {
		if c.counter {
			hasCounter = true
		} else {
			hasOther = true
		}
		if c.conditional() {
			conditional = true
		}
	}
	switch {
	case typ == cql.BatchCounter && hasOther:
		return nil, invalidf("Cannot include non-counter statement in a counter batch")
	case typ == cql.BatchLogged && hasCounter:
		return nil, invalidf("Cannot include a counter statement in a logged batch")
	case hasCounter && hasOther:
		return nil, invalidf("Counter and non-counter mutations cannot exist in the same batch")
	}
	if conditional {
		for _, c := range children {
			if c.using.ts != nil || batchTS {
				return nil, invalidf("Cannot provide custom timestamp for conditional BATCH")
			}
		}
		return xs[0].executeCAS(ctx, children, xs, true)
	}
	// One timestamp for the whole batch unless the client chose one.
	if !xs[0].hasTS {
		var guarded bool
		for _, c := range children {
			guarded = guarded || c.readRow || c.counter || e.st.Load().hasViews(c.ti)
		}
		if !guarded { // else writePlans takes it from the held partitions
			ts := e.nextTimestamp()
			for _, x := range xs {
				if !x.hasTS {
					x.ts, x.hasTS = ts, true
				}
			}
		}
	}
	bc := &batchCheck{typ: typ}
	if err := e.writePlans(ctx, children, xs, bc); err != nil {
		return nil, err
	}
	return &bindings.Result{Kind: bindings.ResultVoid, Warnings: bc.warnings}, nil
}
