package engine

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

// Partition coordination across processes.
//
// LWT, counter updates and read-before-write list operations read a
// partition and write what they computed from it. One process serialises
// them with stripe locks; several processes over one store serialise them
// with a coordination cell per partition in a CondKV store, holding
//
//	{owner, lease expiry, last write timestamp, committed proposal}.
//
// An operation (1) acquires the cell by swapping it from free (or from a
// holder whose lease expired) to its own random owner token; (2) reads the
// partition and computes its mutations, timestamped after the cell's last
// timestamp; (3) commits by swapping the cell from exactly the value it
// wrote in (1) to the same owner plus the encoded mutations: this swap is
// the fencing point, and a holder whose lease was taken over fails here
// having written nothing; (4) applies the mutations (idempotent: fixed
// timestamps); (5) releases by swapping to free, remembering the last
// timestamp. Whoever takes over an expired cell that holds a committed
// proposal applies it first, as a Paxos proposer completes an accepted
// value, so a committed operation is never lost and an uncommitted one
// never becomes visible. Safety rests on the swaps alone; the lease only
// decides when a silent holder is presumed dead.

// Defaults of the coordination timings.
const (
	DefaultLWTLease   = 5 * time.Second
	DefaultLWTTimeout = 10 * time.Second
)

// partRef names one partition to coordinate.
type partRef struct {
	ti  *tableInfo
	key []byte // header row key (ti.codec.PartitionKey)
}

// cellState is the decoded value of a coordination cell.
type cellState struct {
	owner    []byte // nil: free
	expiry   int64  // lease end, µs since the epoch (wall clock)
	lastTS   int64  // highest write timestamp committed on the partition
	proposal []byte // committed, possibly not yet applied, mutations
}

const cellVersion = 1

func (s *cellState) encode() []byte {
	b := make([]byte, 0, 32+len(s.owner)+len(s.proposal))
	b = append(b, cellVersion)
	b = binary.AppendUvarint(b, uint64(len(s.owner)))
	b = append(b, s.owner...)
	b = binary.BigEndian.AppendUint64(b, uint64(s.expiry))
	b = binary.BigEndian.AppendUint64(b, uint64(s.lastTS))
	if s.proposal != nil {
		b = append(b, 1)
		b = append(b, s.proposal...)
	} else {
		b = append(b, 0)
	}
	return b
}

var errBadCoordCell = errors.New("widecolumn: corrupt coordination cell")

func decodeCell(b []byte) (cellState, error) {
	var s cellState
	if len(b) == 0 {
		return s, nil
	}
	if b[0] != cellVersion {
		return s, fmt.Errorf("%w: version %d", errBadCoordCell, b[0])
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n+17 {
		return s, errBadCoordCell
	}
	b = b[k:]
	if n > 0 {
		s.owner = b[:n]
	}
	b = b[n:]
	s.expiry = int64(binary.BigEndian.Uint64(b))
	s.lastTS = int64(binary.BigEndian.Uint64(b[8:]))
	if b[16] == 1 {
		s.proposal = append([]byte{}, b[17:]...)
	}
	return s, nil
}

// encodeProposal encodes the rows and cells of mutations of one table.
func encodeProposal(muts []kv.Mutation) []byte {
	b := binary.AppendUvarint(nil, uint64(len(muts)))
	for _, m := range muts {
		b = binary.AppendUvarint(b, uint64(len(m.Row)))
		b = append(b, m.Row...)
		b = binary.AppendUvarint(b, uint64(len(m.Cells)))
		for _, c := range m.Cells {
			b = binary.AppendUvarint(b, uint64(len(c.Qualifier)))
			b = append(b, c.Qualifier...)
			b = binary.BigEndian.AppendUint64(b, uint64(c.Timestamp))
			b = binary.AppendUvarint(b, uint64(len(c.Value)))
			b = append(b, c.Value...)
		}
	}
	return b
}

func decodeProposal(t *kv.TableSpec, b []byte) ([]kv.Mutation, error) {
	next := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errBadCoordCell
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, nil
	}
	count := func() (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			return 0, errBadCoordCell
		}
		b = b[k:]
		return int(n), nil
	}
	nm, err := count()
	if err != nil {
		return nil, err
	}
	muts := make([]kv.Mutation, 0, nm)
	for range nm {
		row, err := next()
		if err != nil {
			return nil, err
		}
		nc, err := count()
		if err != nil {
			return nil, err
		}
		m := kv.Mutation{Table: t, Row: row, Cells: make([]kv.Cell, 0, nc)}
		for range nc {
			q, err := next()
			if err != nil {
				return nil, err
			}
			if len(b) < 8 {
				return nil, errBadCoordCell
			}
			ts := int64(binary.BigEndian.Uint64(b))
			b = b[8:]
			v, err := next()
			if err != nil {
				return nil, err
			}
			m.Cells = append(m.Cells, kv.Cell{Qualifier: q, Timestamp: ts, Value: v})
		}
		muts = append(muts, m)
	}
	return muts, nil
}

// guard is one acquired partition.
type guard struct {
	ref   partRef
	ckey  []byte    // coordination cell key
	held  []byte    // the cell value we last wrote
	st    cellState // decoded held
	muts  []kv.Mutation
	taken bool // the cell was held by us when we last looked
}

// guards is a set of partitions held by one operation, with their
// in-process stripe locks.
type guards struct {
	e      *Engine
	cond   kv.CondKV // nil: in-process locks only
	gs     []*guard
	unlock func()
	// writeType is the WriteTimeout write type of an operation whose
	// outcome is unknown after the commit point (CAS, COUNTER; "" SIMPLE).
	writeType string
}

func coordKey(ref partRef) []byte {
	return append(kv.CoordTablePrefix(ref.ti.t.ID), ref.key...)
}

// lockParts acquires every partition of refs (deduplicated, in a fixed
// order so that concurrent operations cannot deadlock).
func (e *Engine) lockParts(ctx context.Context, refs []partRef) (*guards, error) {
	gs := &guards{e: e}
	gs.cond, _ = e.kv.(kv.CondKV)
	seen := map[string]bool{}
	for _, r := range refs {
		ck := coordKey(r)
		if seen[string(ck)] {
			continue
		}
		seen[string(ck)] = true
		gs.gs = append(gs.gs, &guard{ref: r, ckey: ck})
	}
	sort.Slice(gs.gs, func(i, j int) bool { return bytes.Compare(gs.gs[i].ckey, gs.gs[j].ckey) < 0 })
	gs.unlock = e.lockStripes(gs.gs)
	if gs.cond == nil {
		return gs, nil
	}
	for i, g := range gs.gs {
		if err := gs.acquire(ctx, g); err != nil {
			gs.release(ctx, gs.gs[:i])
			gs.unlock()
			return nil, err
		}
	}
	return gs, nil
}

// lockStripes takes the in-process stripe locks of the guards' partitions.
func (e *Engine) lockStripes(gs []*guard) func() {
	seen := map[*sync.Mutex]bool{}
	var locks []*sync.Mutex
	for _, g := range gs {
		l := e.partitionLock(g.ref.ti.t.ID, g.ref.key)
		if !seen[l] {
			seen[l] = true
			locks = append(locks, l)
		}
	}
	sort.Slice(locks, func(i, j int) bool { return e.lockIndex(locks[i]) < e.lockIndex(locks[j]) })
	for _, l := range locks {
		l.Lock()
	}
	return func() {
		for i := len(locks) - 1; i >= 0; i-- {
			locks[i].Unlock()
		}
	}
}

// casTimeout is the error of an operation that could not get or keep a
// partition: Cassandra's WriteTimeout of write type CAS.
// committedUnknown answers an operation that failed at or after its commit
// point: the proposal may be in its cells, and then the next holder
// completes it (a committed operation is never lost), so the outcome is
// unknown to the client, as for Cassandra's Paxos commit timeout: a
// WriteTimeout of the operation's write type, not a failure the client
// could take for "not applied" and retry.
func (gs *guards) committedUnknown(err error) error {
	var be *bindings.Error
	if errors.As(err, &be) && be.Code == bindings.CodeWriteTimeout {
		return err
	}
	wt := gs.writeType
	if wt == "" {
		wt = "SIMPLE"
	}
	e := bindings.Errorf(bindings.CodeWriteTimeout, "Operation timed out: the write was committed and may be applied (%v)", err)
	e.WriteType, e.Consistency = wt, bindings.Serial
	if wt != "CAS" {
		e.Consistency = bindings.One
	}
	return e
}

func casTimeout(format string, args ...any) error {
	e := bindings.Errorf(bindings.CodeWriteTimeout, format, args...)
	e.WriteType, e.Consistency = "CAS", bindings.Serial
	return e
}

// acquire swaps g's cell to a fresh owner token, waiting for a live holder
// and completing the proposal of a dead one.
func (gs *guards) acquire(ctx context.Context, g *guard) error {
	e := gs.e
	token := make([]byte, 16)
	if _, err := crand.Read(token); err != nil {
		return fmt.Errorf("widecolumn: owner token: %w", err)
	}
	deadline := time.Now().Add(e.lwtTimeout())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	backoff := time.Millisecond
	for {
		raw, err := gs.cond.CellGet(ctx, g.ckey)
		if err != nil {
			return fmt.Errorf("read coordination cell: %w", err)
		}
		st, err := decodeCell(raw)
		if err != nil {
			return err
		}
		now := time.Now()
		if st.owner == nil || st.expiry < now.UnixMicro() {
			next := cellState{owner: token, expiry: now.Add(e.lwtLease()).UnixMicro(), lastTS: st.lastTS, proposal: st.proposal}
			enc := next.encode()
			ok, err := gs.swap(ctx, g.ckey, raw, enc)
			if err != nil {
				return err
			}
			if ok {
				g.held, g.st, g.taken = enc, next, true
				if next.proposal != nil {
					return gs.complete(ctx, g)
				}
				return nil
			}
			if !now.After(deadline) {
				continue // somebody else moved first: look again
			}
		}
		if now.After(deadline) {
			return casTimeout("Operation timed out waiting for the partition's LWT lease (contention)")
		}
		sleep := backoff/2 + rand.N(backoff)
		if err := sleepCtx(ctx, sleep); err != nil {
			return err
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// swap is CellSwap that recognises its own earlier success: when a retried
// request finds the cell already holding value (values carry a random
// owner token, so nobody else writes the same bytes), it succeeded.
func (gs *guards) swap(ctx context.Context, key, expected, value []byte) (bool, error) {
	ok, err := gs.cond.CellSwap(ctx, key, expected, value)
	if err != nil {
		return false, fmt.Errorf("swap coordination cell: %w", err)
	}
	if ok {
		return true, nil
	}
	cur, err := gs.cond.CellGet(ctx, key)
	if err != nil {
		return false, fmt.Errorf("read coordination cell: %w", err)
	}
	return bytes.Equal(cur, value), nil
}

// complete applies the committed proposal found in a taken-over cell and
// clears it, keeping the cell.
func (gs *guards) complete(ctx context.Context, g *guard) error {
	muts, err := decodeProposal(g.ref.ti.spec, g.st.proposal)
	if err != nil {
		return err
	}
	gs.e.log.Info("widecolumn: completing the committed LWT of an expired holder",
		"table", g.ref.ti.t.Keyspace+"."+g.ref.ti.t.Name, "mutations", len(muts))
	if err := gs.e.apply(ctx, muts); err != nil {
		return fmt.Errorf("complete committed proposal: %w", err)
	}
	next := g.st
	next.proposal = nil
	enc := next.encode()
	ok, err := gs.swap(ctx, g.ckey, g.held, enc)
	if err != nil {
		return err
	}
	if !ok {
		return casTimeout("Operation timed out: the partition's LWT lease expired")
	}
	g.held, g.st = enc, next
	return nil
}

// timestamp returns a write timestamp for the operation: strictly greater
// than every timestamp committed on the held partitions, by any process.
func (gs *guards) timestamp() int64 {
	e := gs.e
	var floor int64
	for _, g := range gs.gs {
		floor = max(floor, g.st.lastTS)
	}
	for {
		ts := e.nextTimestamp()
		if ts > floor {
			return ts
		}
		// Another process wrote later: move this engine's clock past it.
		last := e.lastTS.Load()
		if last < floor {
			e.lastTS.CompareAndSwap(last, floor)
		}
	}
}

// commit makes mutations durable under the held partitions, applies them,
// and releases the partitions. Mutations outside every held partition are
// applied with them.
func (gs *guards) commit(ctx context.Context, muts []kv.Mutation) error {
	defer gs.unlock()
	muts, err := gs.withViews(ctx, muts)
	if err != nil {
		gs.release(ctx, gs.gs)
		return err
	}
	if gs.cond == nil {
		if len(muts) == 0 {
			return nil
		}
		if err := gs.e.apply(ctx, muts); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	rest, err := gs.assign(muts)
	var restTS int64 // mutations applied with the partitions' (views) count as theirs
	for _, m := range rest {
		for _, c := range m.Cells {
			restTS = max(restTS, c.Timestamp)
		}
	}
	if err != nil {
		gs.release(ctx, gs.gs)
		return err
	}
	var failed error
	for _, g := range gs.gs {
		if len(g.muts) == 0 {
			continue
		}
		next := g.st
		next.proposal = encodeProposal(g.muts)
		next.lastTS = max(next.lastTS, restTS)
		for _, m := range g.muts {
			for _, c := range m.Cells {
				next.lastTS = max(next.lastTS, c.Timestamp)
			}
		}
		enc := next.encode()
		ok, err := gs.swap(ctx, g.ckey, g.held, enc)
		if err == nil && !ok {
			err = casTimeout("Operation timed out: the partition's LWT lease expired before commit")
		}
		if err != nil {
			failed = gs.committedUnknown(err)
			g.muts, g.taken = nil, false
			continue
		}
		g.held, g.st = enc, next
	}
	if h := gs.e.opts.AfterCommit; h != nil {
		if err := h(); err != nil {
			return err // as if the process died here: nothing applied, nothing released
		}
	}
	apply := rest
	for _, g := range gs.gs {
		apply = append(apply, g.muts...)
	}
	if len(apply) > 0 {
		if err := gs.e.apply(ctx, apply); err != nil {
			// Committed proposals stay in their cells for the next holder.
			if len(apply) > len(rest) {
				return gs.committedUnknown(fmt.Errorf("write: %w", err))
			}
			return fmt.Errorf("write: %w", err)
		}
	}
	gs.release(ctx, gs.gs)
	return failed
}

// assign distributes mutations to the guards of their partitions.
func (gs *guards) assign(muts []kv.Mutation) ([]kv.Mutation, error) {
	var rest []kv.Mutation
	for _, m := range muts {
		var owner *guard
		for _, g := range gs.gs {
			if g.ref.ti.spec != m.Table {
				continue
			}
			pk, _, err := g.ref.ti.codec.DecodeRowKey(m.Row)
			if err != nil {
				return nil, err
			}
			hkey, err := g.ref.ti.codec.PartitionKey(pk)
			if err != nil {
				return nil, err
			}
			if bytes.Equal(hkey, g.ref.key) {
				owner = g
				break
			}
		}
		if owner == nil {
			rest = append(rest, m)
		} else {
			owner.muts = append(owner.muts, m)
		}
	}
	return rest, nil
}

// abort releases the partitions without writing (conditions that did not
// hold, reads, errors).
func (gs *guards) abort(ctx context.Context) {
	defer gs.unlock()
	if gs.cond != nil {
		gs.release(ctx, gs.gs)
	}
}

// release frees the cells of held (each still ours), keeping their last
// timestamps. A cell taken over meanwhile is left to its new holder.
func (gs *guards) release(ctx context.Context, held []*guard) {
	for _, g := range held {
		if !g.taken {
			continue
		}
		free := cellState{lastTS: g.st.lastTS}
		if _, err := gs.cond.CellSwap(context.WithoutCancel(ctx), g.ckey, g.held, free.encode()); err != nil {
			// The lease frees it; a committed proposal is completed then.
			gs.e.log.Warn("widecolumn: release of a partition's LWT lease failed", "err", err)
		}
		g.taken = false
	}
}

func (e *Engine) lwtLease() time.Duration {
	if e.opts.LWTLease > 0 {
		return e.opts.LWTLease
	}
	return DefaultLWTLease
}

func (e *Engine) lwtTimeout() time.Duration {
	if e.opts.LWTTimeout > 0 {
		return e.opts.LWTTimeout
	}
	return DefaultLWTTimeout
}
