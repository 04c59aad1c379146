package hbase

import (
	"context"
	"strconv"

	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/telemetry"
)

// Spans of the HBase calls (client spans, children of the coordinator's
// backend span): one per Get (one MultiRequest per region, or one RPC per
// key while the regions are not known, sent concurrently; the span's RPC
// count is the number of rows asked for), Put batch and scanner. Untraced
// requests pay one ctx lookup per call.

// DBSystem is db.system of the HBase backend's spans.
const DBSystem = "hbase"

// DBSystem names the store for span attributes.
func (s *Store) DBSystem() string { return DBSystem }

// rpcSpan starts the span of an HBase call on table t (nil: several).
// Following the conventions for HBase, db.namespace and db.collection.name
// are the HBase namespace and table.
func rpcSpan(ctx context.Context, op string, t *kv.TableSpec, rpcs int) telemetry.Span {
	_, sp := telemetry.StartClient(ctx, spanName(op))
	if sp.Exporting() {
		st := telemetry.Statement{System: DBSystem, Operation: op}
		if t != nil && t.ID != "" {
			fq := tableName(t)
			ns, _ := splitTableName(fq)
			st.Namespace, st.Collection = ns, fq
		}
		sp.SetStatement(st, telemetry.AttrRPCs.Int(rpcs))
	}
	if sp.Tracing() && rpcs > 0 {
		sp.Event("Sending " + strconv.Itoa(rpcs) + " HBase " + op + " RPCs")
	}
	return sp
}

// spanName is the name of an operation's span: a constant for the
// store's own operations (building it cost every RPC an allocation).
func spanName(op string) string {
	switch op {
	case "Get":
		return "hbase Get"
	case "Put":
		return "hbase Put"
	case "Scan":
		return "hbase Scan"
	}
	return "hbase " + op
}

// Get reads whole rows, one multi-get per region, the regions concurrently
// (see get). Rows are not read from one snapshot.
func (s *Store) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	sp := rpcSpan(ctx, "Get", t, len(keys))
	if !sp.Recording() {
		return s.get(ctx, t, keys)
	}
	rows, err := s.get(ctx, t, keys)
	sp.EndRows("HBase", kv.FoundRows(rows), err)
	return rows, err
}

// Apply writes each row's cells with one Put (atomic per row in HBase);
// rows are sent concurrently and gohbase batches them per region server.
func (s *Store) Apply(ctx context.Context, muts []kv.Mutation) error {
	var t *kv.TableSpec
	if len(muts) > 0 {
		t = muts[0].Table
	}
	sp := rpcSpan(ctx, "Put", t, len(muts))
	if !sp.Recording() {
		return s.apply(ctx, muts)
	}
	err := s.apply(ctx, muts)
	sp.EndMutations(len(muts), err, "Wrote "+strconv.Itoa(len(muts))+" row mutations to HBase")
	return err
}

// SettlesOnSuccess reports that a call which returned nil keeps nothing of
// what it was given: Get, Apply and the conditional calls return only once
// HBase answered their RPCs, and a scan hands gohbase copies of its bounds
// (kv.SettlingKV). A call that failed may have left an RPC queued
// in gohbase, still pointing at its keys.
func (s *Store) SettlesOnSuccess() bool { return true }

var _ kv.SettlingKV = (*Store)(nil)

// Scan iterates rows of [r.Start, r.Stop) with a gohbase scanner (see
// scan); its span lasts until Close.
func (s *Store) Scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (kv.RowIterator, error) {
	sp := rpcSpan(ctx, "Scan", t, 0)
	it, err := s.scan(ctx, t, r)
	if err != nil {
		sp.EndRows("HBase", 0, err)
		return nil, err
	}
	it.span = sp
	return it, nil
}
