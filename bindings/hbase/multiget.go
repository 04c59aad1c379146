package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

// multiGet reads several rows of one region with one MultiRequest (one
// RegionAction of Gets), the way HBase's own client batches a multi-get.
//
// gohbase's Get is one call per row: a tracing span, a metric observation,
// a result channel and a hop through the region client's batching goroutine
// each, and it decodes every cell into a protobuf Cell. A multiGet is one
// call for all the rows a region holds: gohbase routes it by its first key
// (SetRegion gives the region, from gohbase's own region cache), the caller's
// goroutine writes it to the region server (the call is not hrpc.Batchable,
// so it skips the batching goroutine), and the response's cell blocks are
// decoded straight into kv.Cell values that alias the response buffer.
//
// keys are sorted; the request holds the prefix of keys that the region
// routed to covers (ToProto computes it, on every send, from the region it
// was given), so a stale grouping never sends a key to the wrong region: the
// keys left out, and the keys whose action failed, go back to the caller.
type multiGet struct {
	ctx      context.Context
	table    []byte
	keys     [][]byte
	resultch chan hrpc.RPCResult
	reg      hrpc.RegionInfo

	// Set by ToProto (the sending goroutine) for each send.
	sent int // keys[:sent] are in the request
	// Set by DeserializeCellBlocks (gohbase's receiving goroutine), read
	// by the caller after the result arrives on resultch.
	cells [][]kv.Cell
}

var _ hrpc.Call = (*multiGet)(nil)

func newMultiGet(ctx context.Context, table []byte, keys [][]byte) *multiGet {
	return &multiGet{ctx: ctx, table: table, keys: keys, resultch: make(chan hrpc.RPCResult, 1)}
}

// Table, Key, Region, SetRegion, ResultChan, Context, NewResponse, Name
// and Description implement hrpc.Call.
func (m *multiGet) Table() []byte                   { return m.table }
func (m *multiGet) Key() []byte                     { return m.keys[0] }
func (m *multiGet) Region() hrpc.RegionInfo         { return m.reg }
func (m *multiGet) SetRegion(r hrpc.RegionInfo)     { m.reg = r }
func (m *multiGet) ResultChan() chan hrpc.RPCResult { return m.resultch }
func (m *multiGet) Context() context.Context        { return m.ctx }
func (m *multiGet) NewResponse() proto.Message      { return &pb.MultiResponse{} }
func (m *multiGet) Name() string                    { return "Multi" }
func (m *multiGet) Description() string             { return "MultiGet" }

// index maps a result's action index (1-based: 0 means "none") to a key.
func (m *multiGet) index(action uint32) (int, bool) {
	return int(action) - 1, action >= 1 && int(action) <= m.sent
}

// ToProto builds the MultiRequest: one Get per key the region covers.
func (m *multiGet) ToProto() proto.Message {
	stop := m.reg.StopKey()
	n := 0
	for n < len(m.keys) && (len(stop) == 0 || bytes.Compare(m.keys[n], stop) < 0) {
		n++
	}
	m.sent = n
	m.cells = make([][]kv.Cell, n)
	acts := make([]pb.Action, n)
	gets := make([]pb.Get, n)
	idx := make([]uint32, n)
	ptrs := make([]*pb.Action, n)
	for i := range n {
		idx[i] = uint32(i) + 1
		gets[i].Row = m.keys[i]
		acts[i].Index = &idx[i]
		acts[i].Get = &gets[i]
		ptrs[i] = &acts[i]
	}
	return &pb.MultiRequest{RegionAction: []*pb.RegionAction{{
		Region: &pb.RegionSpecifier{Type: &regionSpecByName, Value: m.reg.Name()},
		Action: ptrs,
	}}}
}

// DeserializeCellBlocks decodes the cells of every result, in response
// order, from the cell blocks that follow the MultiResponse (gohbase calls
// it when the response has cell blocks). It returns the bytes read.
func (m *multiGet) DeserializeCellBlocks(msg proto.Message, b []byte) (uint32, error) {
	mr, ok := msg.(*pb.MultiResponse)
	if !ok {
		return 0, fmt.Errorf("multi-get: response is a %T", msg)
	}
	total := 0
	for _, rar := range mr.GetRegionActionResult() {
		for _, roe := range rar.GetResultOrException() {
			total += int(roe.GetResult().GetAssociatedCellCount())
		}
	}
	all := make([]kv.Cell, 0, total)
	var read uint32
	for _, rar := range mr.GetRegionActionResult() {
		for _, roe := range rar.GetResultOrException() {
			n := roe.GetResult().GetAssociatedCellCount()
			if n <= 0 {
				continue
			}
			i, ok := m.index(roe.GetIndex())
			if !ok {
				return read, fmt.Errorf("multi-get: result index %d out of range", roe.GetIndex())
			}
			start := len(all)
			for range n {
				c, fam, l, err := cellFromBlock(b[read:])
				if err != nil {
					return read, fmt.Errorf("multi-get: %w", err)
				}
				read += l
				if string(fam) == family {
					all = append(all, c)
				}
			}
			if len(all) > start {
				m.cells[i] = all[start:len(all):len(all)]
			}
		}
	}
	return read, nil
}

// cellFromBlock decodes one cell of a KeyValueCodec cell block:
//
//	uint32 length of the rest, uint32 key length, uint32 value length,
//	key: uint16 row length, row, uint8 family length, family, qualifier,
//	     uint64 timestamp, uint8 type;
//	value
//
// The cell's slices alias b. It returns the cell, its family and the bytes
// read.
func cellFromBlock(b []byte) (c kv.Cell, fam []byte, n uint32, err error) {
	if len(b) < 12 {
		return c, nil, 0, fmt.Errorf("cell block truncated: %d bytes", len(b))
	}
	kvLen := binary.BigEndian.Uint32(b)
	keyLen := binary.BigEndian.Uint32(b[4:])
	valLen := binary.BigEndian.Uint32(b[8:])
	if uint64(len(b)) < 4+uint64(kvLen) || uint64(kvLen) != 8+uint64(keyLen)+uint64(valLen) || keyLen < 2+1+8+1 {
		return c, nil, 0, fmt.Errorf("bad cell: length %d, key %d, value %d, %d bytes", kvLen, keyLen, valLen, len(b))
	}
	key := b[12 : 12+keyLen]
	rowLen := uint32(binary.BigEndian.Uint16(key))
	if 2+rowLen+1 > keyLen-9 {
		return c, nil, 0, fmt.Errorf("bad cell: row of %d bytes in a key of %d", rowLen, keyLen)
	}
	famLen := uint32(key[2+rowLen])
	q := 2 + rowLen + 1 + famLen
	if q > keyLen-9 {
		return c, nil, 0, fmt.Errorf("bad cell: family of %d bytes in a key of %d", famLen, keyLen)
	}
	fam = key[2+rowLen+1 : q]
	c.Qualifier = key[q : keyLen-9 : keyLen-9]
	c.Timestamp = int64(binary.BigEndian.Uint64(key[keyLen-9:]))
	c.Value = b[12+keyLen : 12+keyLen+valLen : 12+keyLen+valLen]
	return c, fam, 4 + kvLen, nil
}

// results copies the rows a successful multi-get read into rows (at the
// positions in idx, parallel to m.keys) and returns the positions it could
// not read: keys outside the region and keys whose action failed.
func (m *multiGet) results(msg proto.Message, idx []int, rows []kv.Row) ([]int, error) {
	mr, ok := msg.(*pb.MultiResponse)
	if !ok {
		return nil, fmt.Errorf("multi-get: response is a %T", msg)
	}
	done := make([]bool, m.sent)
	for _, rar := range mr.GetRegionActionResult() {
		if rar.GetException() != nil {
			continue // the whole region failed: every key is left over
		}
		for _, roe := range rar.GetResultOrException() {
			i, ok := m.index(roe.GetIndex())
			if !ok || roe.GetException() != nil || roe.GetResult() == nil {
				continue
			}
			cells := m.cells[i]
			if pc := roe.GetResult().GetCell(); len(pc) > 0 {
				cells = pbCells(pc) // cells inside the protobuf (no cell blocks)
			}
			rows[idx[i]].Cells = cells
			done[i] = true
		}
	}
	var left []int
	for i, ok := range done {
		if !ok {
			left = append(left, idx[i])
		}
	}
	return append(left, idx[m.sent:]...), nil
}

// pbCells converts cells sent inside a protobuf Result, of family "d".
func pbCells(pc []*pb.Cell) []kv.Cell {
	out := make([]kv.Cell, 0, len(pc))
	for _, c := range pc {
		if string(c.GetFamily()) != family {
			continue
		}
		q := c.GetQualifier()
		if q == nil {
			q = []byte{}
		}
		out = append(out, kv.Cell{Qualifier: q, Timestamp: int64(c.GetTimestamp()), Value: c.GetValue()})
	}
	return out
}
