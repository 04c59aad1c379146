package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/telemetry"
)

// maxScanCaching bounds the rows fetched per scan RPC when the caller gave
// a limit hint; without a hint HBase's 2 MiB result size bounds each fetch.
const maxScanCaching = 10000

// errFetchTimeout cancels a scan whose fetch outlived the op timeout.
var errFetchTimeout = errors.New("hbase: scan fetch timed out")

// lastRow is the start row of a reversed scan from the end of the table:
// gohbase locates a scan's first region by its start row, so that row must
// lie in the last region. A finite key cannot sort after every key; this
// one is after every row key that does not begin with 16 KiB of 0xff bytes.
// (It cannot be HBase's whole 32 KiB row limit: gohbase looks it up in
// hbase:meta behind the table name, and HBase bounds scan rows to 32 KiB.)
var lastRow = bytes.Repeat([]byte{0xff}, 16<<10)

// scan iterates rows of [r.Start, r.Stop) with a gohbase scanner. The
// scanner fetches batches lazily and is not a snapshot across batches.
//
// HBase reversed scans start at an inclusive upper row and stop before an
// exclusive lower row, the reverse of ScanRange: the iterator starts at
// r.Stop (skipping that row), asks HBase to stop just below r.Start, and
// ends itself at the first row below r.Start.
func (s *Store) scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (*rowIter, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if t == nil || t.ID == "" {
		return nil, errors.New("hbase: scan: spec without ID")
	}
	it := &rowIter{s: s, start: r.Start, stop: r.Stop, reverse: r.Reverse}
	if r.Start != nil && r.Stop != nil && bytes.Compare(r.Start, r.Stop) >= 0 {
		it.done = true
		return it, nil
	}
	var opts []func(hrpc.Call) error
	if r.Limit > 0 {
		// The hint counts CQL rows; a partition header row comes too.
		opts = append(opts, hrpc.NumberOfRows(uint32(min(r.Limit+2, maxScanCaching))))
	}
	from, to := r.Start, r.Stop
	if r.Reverse {
		opts = append(opts, hrpc.Reversed())
		from, to = r.Stop, below(r.Start)
		if from == nil {
			from = lastRow
		}
	}
	// gohbase keeps the bounds past Close (a scanner closed early sends
	// its close request from a goroutine of its own, routed by the start
	// row), and the caller may reuse their memory once this call and the
	// iterator are done (kv.SettlingKV): hand it copies.
	from, to = bytes.Clone(from), bytes.Clone(to)
	sctx, cancel := context.WithCancelCause(ctx)
	_, table := s.names.of(t)
	sc, err := hrpc.NewScanRange(sctx, table, from, to, opts...)
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("hbase: scan: %w", err)
	}
	it.ctx, it.cancel = sctx, cancel
	it.scanner = s.client.Scan(sc)
	return it, nil
}

// below returns a row key under k for the exclusive lower bound of a
// reversed scan: k's predecessor when k ends in 0x00, otherwise a key a
// little under k (rows between it and k are dropped by the iterator). nil
// means the start of the table.
func below(k []byte) []byte {
	n := len(k)
	if n == 0 {
		return nil
	}
	out := bytes.Clone(k[:n-1])
	if k[n-1] == 0 {
		// k[:n-1] + 0x00 is the immediate successor of k[:n-1].
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return append(out, k[n-1]-1)
}

// rowIter adapts a gohbase scanner to kv.RowIterator.
type rowIter struct {
	s           *Store
	start, stop []byte
	reverse     bool

	mu      sync.Mutex
	span    telemetry.Span
	rows    int // rows returned, counted for span
	ctx     context.Context
	cancel  context.CancelCauseFunc
	scanner hrpc.Scanner
	done    bool
	closed  bool
	err     error
}

// Next returns the next row. ctx bounds this call; cancelling it ends the
// scan.
func (it *rowIter) Next(ctx context.Context) (kv.Row, bool) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.closed || it.done || it.err != nil {
		return kv.Row{}, false
	}
	if err := ctx.Err(); err != nil {
		it.err = fmt.Errorf("hbase: scan: %w", err)
		return kv.Row{}, false
	}
	if it.s.closed.Load() {
		it.err = fmt.Errorf("hbase: scan: %w", ErrClosed)
		return kv.Row{}, false
	}
	// gohbase's scanner is bound to the context it was made with: tie this
	// call's ctx and the op timeout to it.
	stopAfter := context.AfterFunc(ctx, func() { it.cancel(ctx.Err()) })
	timer := time.AfterFunc(it.s.opTO, func() { it.cancel(errFetchTimeout) })
	defer func() {
		timer.Stop()
		stopAfter()
	}()
	for {
		res, err := it.scanner.Next()
		if err == io.EOF {
			it.done = true
			return kv.Row{}, false
		}
		if err != nil {
			it.err = it.fail(ctx, err)
			return kv.Row{}, false
		}
		if res == nil || len(res.Cells) == 0 {
			continue
		}
		key := res.Cells[0].Row
		if !it.reverse {
			if it.stop != nil && bytes.Compare(key, it.stop) >= 0 {
				it.finish()
				return kv.Row{}, false
			}
		} else {
			if it.stop != nil && bytes.Compare(key, it.stop) >= 0 {
				continue // the start row of a reversed scan is inclusive
			}
			if it.start != nil && bytes.Compare(key, it.start) < 0 {
				it.finish()
				return kv.Row{}, false
			}
		}
		it.rows++
		return kv.Row{Key: key, Cells: toCells(res.Cells)}, true
	}
}

// fail maps a scanner error, telling a cancelled Next ctx and the op
// timeout apart from HBase errors.
func (it *rowIter) fail(ctx context.Context, err error) error {
	switch cause := context.Cause(it.ctx); {
	case errors.Is(cause, errFetchTimeout):
		return it.s.wrapErr(ctx, "scan", context.DeadlineExceeded)
	case ctx.Err() != nil:
		return it.s.wrapErr(ctx, "scan", ctx.Err())
	}
	return it.s.wrapErr(it.ctx, "scan", err)
}

// finish ends the scan early (past a bound).
func (it *rowIter) finish() {
	it.done = true
	_ = it.scanner.Close()
}

// Err reports the error that ended the scan, if any.
func (it *rowIter) Err() error {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.err
}

// Close releases the scanner; safe to call more than once.
func (it *rowIter) Close() error {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.closed {
		return nil
	}
	it.closed = true
	it.span.EndRows("HBase", it.rows, it.err)
	if it.scanner != nil {
		_ = it.scanner.Close()
	}
	if it.cancel != nil {
		it.cancel(nil)
	}
	return nil
}
