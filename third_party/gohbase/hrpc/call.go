// Copyright (C) 2015  The GoHBase Authors.  All rights reserved.
// This file is part of GoHBase.
// Use of this source code is governed by the Apache License 2.0
// that can be found in the COPYING file.

package hrpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"
)

// RegionInfo represents HBase region.
type RegionInfo interface {
	IsUnavailable() bool
	AvailabilityChan() <-chan struct{}
	MarkUnavailable() bool
	MarkAvailable()
	MarkDead()
	Context() context.Context
	String() string
	ID() uint64
	Name() []byte
	StartKey() []byte
	StopKey() []byte
	Namespace() []byte
	Table() []byte
	SetClient(RegionClient)
	Client() RegionClient
}

// RegionClient represents HBase region client.
type RegionClient interface {
	// Dial connects and bootstraps region client. Only the first caller to Dial gets to
	// actually connect, other concurrent callers will block until connected or an error.
	Dial(context.Context) error
	Close()
	Addr() string
	QueueRPC(Call)
	String() string
}

// Call represents an HBase RPC call.
type Call interface {
	Table() []byte
	Name() string
	Key() []byte
	Region() RegionInfo
	SetRegion(region RegionInfo)
	ToProto() proto.Message
	// Returns a newly created (default-state) protobuf in which to store the
	// response of this call.
	NewResponse() proto.Message
	ResultChan() chan RPCResult
	Description() string // Used for tracing and metrics
	Context() context.Context
}

type withOptions interface {
	Options() []func(Call) error
	setOptions([]func(Call) error)
}

// Batchable interface should be implemented by calls that can be batched into MultiRequest
type Batchable interface {
	// SkipBatch returns true if a call shouldn't be batched into MultiRequest and
	// should be sent right away.
	SkipBatch() bool

	setSkipBatch(v bool)
}

// SkipBatch is an option for batchable requests (Get and Mutate) to tell
// the client to skip batching and just send the request to Region Server
// right away.
func SkipBatch() func(Call) error {
	return func(c Call) error {
		if b, ok := c.(Batchable); ok {
			b.setSkipBatch(true)
			return nil
		}
		return errors.New("'SkipBatch' option only works with Get and Mutate requests")
	}
}

// hasQueryOptions is interface that needs to be implemented by calls
// that allow to provide Families and Filters options.
type hasQueryOptions interface {
	setFamilies(families map[string][]string)
	setFilter(filter *pb.Filter)
	setTimeRangeUint64(from, to uint64)
	setMaxVersions(versions uint32)
	setMaxResultsPerColumnFamily(maxresults uint32)
	setResultOffset(offset uint32)
	setCacheBlocks(cacheBlocks bool)
	setConsistency(consistency ConsistencyType)
}

// RPCResult is struct that will contain both the resulting message from an RPC
// call, and any errors that may have occurred related to making the RPC call.
type RPCResult struct {
	Msg   proto.Message
	Error error
}

type base struct {
	ctx context.Context

	table   []byte
	key     []byte
	options []func(Call) error

	region   RegionInfo
	resultch chan RPCResult
}

func (b *base) Context() context.Context {
	return b.ctx
}

func (b *base) Region() RegionInfo {
	return b.region
}

func (b *base) SetRegion(region RegionInfo) {
	b.region = region
}

var RegionSpecifierRegionName = pb.RegionSpecifier_REGION_NAME.Enum()

func (b *base) regionSpecifier() *pb.RegionSpecifier {
	if i, ok := b.region.(interface{ RegionSpecifier() *pb.RegionSpecifier }); ok {
		return i.RegionSpecifier()
	}
	return &pb.RegionSpecifier{
		Type:  RegionSpecifierRegionName,
		Value: b.region.Name(),
	}
}

func (b *base) setOptions(options []func(Call) error) {
	b.options = options
}

// Options returns all the options passed to this call
func (b *base) Options() []func(Call) error {
	return b.options
}

func applyOptions(call Call, options ...func(Call) error) error {
	call.(withOptions).setOptions(options)
	for _, option := range options {
		err := option(call)
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *base) Table() []byte {
	return b.table
}

func (b *base) Key() []byte {
	return b.key
}

func (b *base) ResultChan() chan RPCResult {
	return b.resultch
}

// Cell is the smallest level of granularity in returned results.
// Represents a single cell in HBase (a row will have one cell for every qualifier).
type Cell pb.Cell

func (c *Cell) String() string {
	return (*pb.Cell)(c).String()
}

// cellFromCellBlock decodes the KeyValue at the start of b into slot and
// returns its length. dohyo patch: the caller provides the storage (see
// deserializeCellBlocks), and every length is checked against the bytes
// there before it is used (a short or inconsistent KeyValue used to panic
// the reading goroutine with a slice out of range). The form:
//
//	uint32 length of the rest
//	uint32 key length, uint32 value length
//	key:   uint16 row length, row, uint8 family length, family, qualifier,
//	       uint64 timestamp, uint8 type
//	value
func cellFromCellBlock(b []byte, slot *cellSlot) (uint32, error) {
	if len(b) < 4 {
		return 0, fmt.Errorf(
			"buffer is too small: expected %d, got %d", 4, len(b))
	}
	kvLen := binary.BigEndian.Uint32(b[0:4])
	if uint64(len(b)) < uint64(kvLen)+4 {
		return 0, fmt.Errorf(
			"buffer is too small: expected %d, got %d", uint64(kvLen)+4, len(b))
	}
	if kvLen < minCellBlockCell-4 {
		return 0, fmt.Errorf("KeyValue of %d bytes is shorter than the smallest (%d)", kvLen, minCellBlockCell-4)
	}
	kv := b[4 : 4+kvLen]
	keyLen := binary.BigEndian.Uint32(kv[0:4])
	valueLen := binary.BigEndian.Uint32(kv[4:8])
	if 8+uint64(keyLen)+uint64(valueLen) != uint64(kvLen) || keyLen < 2+1+8+1 {
		return 0, fmt.Errorf("HBase has lied about KeyValue length: %d bytes, key %d, value %d",
			kvLen, keyLen, valueLen)
	}
	key := kv[8 : 8+keyLen]
	rowLen := int(binary.BigEndian.Uint16(key[0:2]))
	if 2+rowLen+1+8+1 > len(key) {
		return 0, fmt.Errorf("row of %d bytes does not fit in a key of %d", rowLen, len(key))
	}
	famLen := int(key[2+rowLen])
	qualStart := 2 + rowLen + 1 + famLen
	if qualStart+8+1 > len(key) {
		return 0, fmt.Errorf("family of %d bytes does not fit in a key of %d", famLen, len(key))
	}
	trailer := len(key) - 9
	slot.ts = binary.BigEndian.Uint64(key[trailer : trailer+8])
	slot.ct = pb.CellType(key[trailer+8])

	// Each field's capacity ends with it: an append by a caller copies
	// instead of overwriting the next field in the response buffer.
	c := &slot.cell
	c.Row = key[2 : 2+rowLen : 2+rowLen]
	c.Family = key[2+rowLen+1 : qualStart : qualStart]
	c.Qualifier = key[qualStart:trailer:trailer]
	c.Timestamp = &slot.ts
	c.Value = kv[8+keyLen : kvLen : kvLen]
	c.CellType = &slot.ct
	return kvLen + 4, nil
}

// cellSlot holds one decoded cell and the values its pointer fields refer
// to (dohyo patch).
type cellSlot struct {
	cell pb.Cell
	ts   uint64
	ct   pb.CellType
}

// minCellBlockCell is the size of the smallest KeyValue in a cell block:
// lengths (4+4+4), row length (2), family length (1), timestamp (8), type (1).
const minCellBlockCell = 24

// appendCells appends cells to a result's cells (dohyo patch: no copy when
// there is nothing to append to).
func appendCells(dst, cells []*pb.Cell) []*pb.Cell {
	if len(dst) == 0 {
		return cells
	}
	return append(dst, cells...)
}

// deserializeCellBlocks decodes cellsLen cells from b. dohyo patch: the
// cells and their timestamps and types live in one allocation (three per
// cell before), and a count that cannot fit in b is an error before any
// allocation.
func deserializeCellBlocks(b []byte, cellsLen uint32) ([]*pb.Cell, uint32, error) {
	if uint64(cellsLen)*minCellBlockCell > uint64(len(b)) {
		return nil, 0, fmt.Errorf("%d cells cannot fit in a cell block of %d bytes", cellsLen, len(b))
	}
	cells := make([]*pb.Cell, cellsLen)
	slots := make([]cellSlot, cellsLen)
	var readLen uint32
	for i := 0; i < int(cellsLen); i++ {
		l, err := cellFromCellBlock(b[readLen:], &slots[i])
		if err != nil {
			return nil, readLen, err
		}
		cells[i] = &slots[i].cell
		readLen += l
	}
	return cells, readLen, nil
}

// Result holds a slice of Cells as well as miscellaneous information about the response.
type Result struct {
	Cells   []*Cell
	Stale   bool
	Partial bool
	// Exists is only set if existance_only was set in the request query.
	Exists *bool
}

func (c *Result) String() string {
	return fmt.Sprintf("cells:%v stale:%v partial:%v exists:%v ",
		c.Cells, c.Stale, c.Partial, c.Exists)
}

func extractBool(v *bool) bool {
	return v != nil && *v
}

// ToLocalResult takes a protobuf Result type and converts it to our own
// Result type in constant time.
func ToLocalResult(pbr *pb.Result) *Result {
	if pbr == nil {
		return &Result{}
	}
	return &Result{
		// Should all be O(1) operations.
		Cells:   toLocalCells(pbr),
		Stale:   extractBool(pbr.Stale),
		Partial: extractBool(pbr.Partial),
		Exists:  pbr.Exists,
	}
}

func toLocalCells(pbr *pb.Result) []*Cell {
	return *(*[]*Cell)(unsafe.Pointer(&pbr.Cell))
}

// We can now define any helper functions on Result that we want.
