package hbase

import (
	"context"
	"encoding/binary"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

// rowPut is one HBase Put of a whole row whose cells carry their own
// timestamps. hrpc.Mutate has a single timestamp per Put, but a row written
// by one KV.Apply may hold cells of several timestamps (a collection
// overwrite writes its tombstone at ts-1), and one Put per row is what makes
// the row's update atomic in HBase.
//
// rowPut embeds *hrpc.Mutate for routing, results and gohbase's request
// batching (hrpc.Batchable is satisfied through the embedded type), and
// replaces only the request encoding with per-cell timestamps.
type rowPut struct {
	*hrpc.Mutate
	row   []byte
	cells []kv.Cell
}

var (
	_ hrpc.Call              = (*rowPut)(nil)
	_ hrpc.CellBlockAppender = (*rowPut)(nil)
	_ hrpc.Batchable         = (*rowPut)(nil)
)

// newRowPut makes the Put; direct makes gohbase write it from the calling
// goroutine instead of its batching writer (Store.beginPoint).
func newRowPut(ctx context.Context, table, row []byte, cells []kv.Cell, direct bool) (*rowPut, error) {
	var m *hrpc.Mutate
	var err error
	if direct {
		m, err = hrpc.NewPut(ctx, table, row, nil, hrpc.SkipBatch())
	} else {
		m, err = hrpc.NewPut(ctx, table, row, nil)
	}
	if err != nil {
		return nil, err
	}
	return &rowPut{Mutate: m, row: row, cells: cells}, nil
}

var (
	putType           = pb.MutationProto_PUT
	regionSpecByName  = pb.RegionSpecifier_REGION_NAME
	familyBytes       = []byte(family)
	keyValueTypePut   = byte(4) // KeyValue.Type.Put
	maxRowLength      = 1<<15 - 1
	maxQualifierBytes = 1 << 16
)

func (p *rowPut) regionSpecifier() *pb.RegionSpecifier {
	var name []byte
	if r := p.Region(); r != nil {
		name = r.Name()
	}
	return &pb.RegionSpecifier{Type: &regionSpecByName, Value: name}
}

// ToProto encodes the Put with cells inside the protobuf message (used when
// cell blocks are off).
func (p *rowPut) ToProto() proto.Message {
	qvs := make([]*pb.MutationProto_ColumnValue_QualifierValue, len(p.cells))
	for i := range p.cells {
		c := &p.cells[i]
		qvs[i] = &pb.MutationProto_ColumnValue_QualifierValue{
			Qualifier: c.Qualifier,
			Value:     c.Value,
			Timestamp: proto.Uint64(uint64(c.Timestamp)),
		}
	}
	return &pb.MutateRequest{
		Region: p.regionSpecifier(),
		Mutation: &pb.MutationProto{
			Row:         p.row,
			MutateType:  &putType,
			ColumnValue: []*pb.MutationProto_ColumnValue{{Family: familyBytes, QualifierValue: qvs}},
		},
	}
}

// SerializeCellBlocks encodes the Put as a protobuf header plus KeyValue
// cell blocks, gohbase's default wire form for mutations.
func (p *rowPut) SerializeCellBlocks() (proto.Message, [][]byte, uint32) {
	// All cells in one block: one allocation, whatever the row's width.
	block := p.AppendCellBlock(make([]byte, 0, p.blockLen()))
	n := int32(len(p.cells))
	req := &pb.MutateRequest{
		Region: p.regionSpecifier(),
		Mutation: &pb.MutationProto{
			Row:                 p.row,
			MutateType:          &putType,
			AssociatedCellCount: &n,
		},
	}
	return req, [][]byte{block}, uint32(len(block))
}

// CellBlockLen is the length of the Put's cell block; ok is false when the
// Put has no region name or no row (SerializeCellBlocks' message then
// fails to marshal, as before).
func (p *rowPut) CellBlockLen() (uint32, bool) {
	r := p.Region()
	if r == nil || r.Name() == nil || p.row == nil {
		return 0, false
	}
	return uint32(p.blockLen()), true
}

// blockLen is the length of the Put's cell block.
func (p *rowPut) blockLen() int {
	size := 0
	for i := range p.cells {
		size += keyValueLen(p.row, familyBytes, &p.cells[i])
	}
	return size
}

// Protobuf tags of the MutateRequest AppendCellBlockRequest writes.
const (
	tagRequestRegion     byte = 1<<3 | byte(protowire.BytesType)
	tagRequestMutation   byte = 2<<3 | byte(protowire.BytesType)
	tagSpecifierType     byte = 1<<3 | byte(protowire.VarintType)
	tagSpecifierValue    byte = 2<<3 | byte(protowire.BytesType)
	tagMutationRow       byte = 1<<3 | byte(protowire.BytesType)
	tagMutationType      byte = 2<<3 | byte(protowire.VarintType)
	tagMutationCellCount byte = 8<<3 | byte(protowire.VarintType)
)

// AppendCellBlockRequest appends, preceded by its length, what
// proto.Marshal writes for SerializeCellBlocks' MutateRequest (the fork
// sends it without building the message; TestForkPutEncoding compares).
func (p *rowPut) AppendCellBlockRequest(b []byte) []byte {
	name := p.Region().Name()
	n := uint64(int64(int32(len(p.cells))))
	specSize := 3 + protowire.SizeBytes(len(name))
	mutSize := 1 + protowire.SizeBytes(len(p.row)) + 2 + 1 + protowire.SizeVarint(n)
	size := 1 + protowire.SizeBytes(specSize) + 1 + protowire.SizeBytes(mutSize)
	b = protowire.AppendVarint(b, uint64(size))
	b = append(b, tagRequestRegion)
	b = protowire.AppendVarint(b, uint64(specSize))
	b = append(b, tagSpecifierType, byte(regionSpecByName), tagSpecifierValue)
	b = protowire.AppendBytes(b, name)
	b = append(b, tagRequestMutation)
	b = protowire.AppendVarint(b, uint64(mutSize))
	b = append(b, tagMutationRow)
	b = protowire.AppendBytes(b, p.row)
	b = append(b, tagMutationType, byte(putType), tagMutationCellCount)
	return protowire.AppendVarint(b, n)
}

// AppendCellBlock appends the Put's cells in KeyValueCodec form.
func (p *rowPut) AppendCellBlock(b []byte) []byte {
	for i := range p.cells {
		b = appendKeyValue(b, p.row, familyBytes, &p.cells[i])
	}
	return b
}

// keyValueLen is the length appendKeyValue appends for c: the leading
// length and what it counts.
func keyValueLen(row, fam []byte, c *kv.Cell) int {
	return 4 + kvBodyLen(kvKeyLen(row, fam, c), c)
}

// kvKeyLen is the length of c's key in KeyValue form.
func kvKeyLen(row, fam []byte, c *kv.Cell) int {
	return 2 + len(row) + 1 + len(fam) + len(c.Qualifier) + 8 + 1
}

// kvBodyLen is what a KeyValue's leading length counts: the key and value
// lengths, the key and the value.
func kvBodyLen(keyLen int, c *kv.Cell) int { return 4 + 4 + keyLen + len(c.Value) }

// appendKeyValue appends one cell in HBase's KeyValueCodec form:
//
//	uint32 length of the rest
//	uint32 key length, uint32 value length
//	key:   uint16 row length, row, uint8 family length, family, qualifier,
//	       uint64 timestamp, uint8 type
//	value
func appendKeyValue(dst, row, fam []byte, c *kv.Cell) []byte {
	keyLen := kvKeyLen(row, fam, c)
	kvLen := kvBodyLen(keyLen, c)
	dst = binary.BigEndian.AppendUint32(dst, uint32(kvLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(keyLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Value)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(row)))
	dst = append(dst, row...)
	dst = append(dst, byte(len(fam)))
	dst = append(dst, fam...)
	dst = append(dst, c.Qualifier...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.Timestamp))
	dst = append(dst, keyValueTypePut)
	return append(dst, c.Value...)
}
