package hbase

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/engine/kv"
)

// lwtTable holds the engine's coordination cells (see kv.CondKV):
// row "<catalog>/<key>", column d:c. It is apart from user tables so that
// their scans never meet a cell, and is created on first use.
const (
	lwtTable     = metaNamespace + ":lwt"
	lwtQualifier = "c"
)

var _ kv.CondKV = (*Store)(nil)

func (s *Store) ensureLWT(ctx context.Context) error {
	if _, ok := s.tables.Load(lwtTable); ok {
		return nil
	}
	dctx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	err := s.ensureTable(dctx, lwtTable, TableOptions{Compression: "NONE", Encoding: "NONE"}, nil)
	return s.wrapErr(ctx, "create coordination table "+lwtTable, err)
}

// CellGet reads a coordination cell; a missing cell is nil, nil.
func (s *Store) CellGet(ctx context.Context, key []byte) ([]byte, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if err := s.ensureLWT(ctx); err != nil {
		return nil, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	g, err := hrpc.NewGet(octx, []byte(lwtTable), s.cellRow(key),
		hrpc.Families(map[string][]string{family: {lwtQualifier}}))
	if err != nil {
		return nil, err
	}
	res, err := s.client.Get(g)
	if err != nil {
		return nil, s.wrapErr(ctx, "get coordination cell", err)
	}
	for _, c := range res.Cells {
		if string(c.Qualifier) == lwtQualifier {
			return bytes.Clone(c.Value), nil
		}
	}
	return nil, nil
}

// CellSwap is HBase's CheckAndPut on the cell's row: the region server
// compares and writes under the row lock. An empty expected value matches
// a missing cell (HBase's rule), which is why cell values are never empty.
func (s *Store) CellSwap(ctx context.Context, key, expected, value []byte) (bool, error) {
	if len(value) == 0 {
		return false, errors.New("hbase: swap coordination cell: empty value")
	}
	if err := s.ensureLWT(ctx); err != nil {
		return false, err
	}
	return s.checkAndPut(ctx, lwtTable, s.cellRow(key), map[string][]byte{lwtQualifier: value},
		lwtQualifier, expected, "swap coordination cell")
}

// dropCells deletes the coordination cells of table id's partitions (the
// table is being dropped: a table created later has another ID, so the
// cells are garbage). Without a coordination table there is nothing to do.
func (s *Store) dropCells(ctx context.Context, id string) error {
	start := s.cellRow(kv.CoordTablePrefix(id))
	stop := append(bytes.Clone(start[:len(start)-1]), start[len(start)-1]+1)
	octx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	sc, err := hrpc.NewScanRange(octx, []byte(lwtTable), start, stop,
		hrpc.Families(map[string][]string{family: {lwtQualifier}}), hrpc.Filters(filter.NewKeyOnlyFilter(false)))
	if err != nil {
		return err
	}
	var rows [][]byte
	scanner := s.client.Scan(sc)
	for {
		res, err := scanner.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			scanner.Close()
			if errors.Is(err, gohbase.TableNotFound) || isJava(err, excTableNotFound) {
				return nil
			}
			return s.wrapErr(ctx, "scan coordination cells", err)
		}
		if len(res.Cells) > 0 {
			rows = append(rows, bytes.Clone(res.Cells[0].Row))
		}
	}
	scanner.Close()
	for _, row := range rows {
		d, err := hrpc.NewDel(octx, []byte(lwtTable), row, nil)
		if err != nil {
			return err
		}
		if _, err := s.client.Delete(d); err != nil {
			return s.wrapErr(ctx, "delete coordination cell", err)
		}
	}
	return nil
}

func (s *Store) cellRow(key []byte) []byte {
	return append([]byte(s.catalog+"/"), key...)
}
