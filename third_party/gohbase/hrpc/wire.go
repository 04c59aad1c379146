// Copyright (C) 2015  The GoHBase Authors.  All rights reserved.
// This file is part of GoHBase.
// Use of this source code is governed by the Apache License 2.0
// that can be found in the COPYING file.

package hrpc

// dohyo patch: point Gets and Puts sent, and their responses decoded,
// without protobuf's reflection. ToProto builds five messages per Get and
// proto.Marshal walks them by reflection; responses are decoded into a
// message, a Result and a pointer per field the same way. For the shapes
// a Get usually has (no families, no filter) the bytes are written here
// directly, in the order proto.Marshal writes them (by field number); a
// call implementing CellBlockAppender (dohyo's Put) writes its request and
// cell block into the send buffer itself; a Get or Mutate response that
// carries only its cells' count and flags (cells in the cell block, which
// region servers send to clients announcing 1.3 or later) is decoded here
// into one allocation. Anything else goes through ToProto,
// SerializeCellBlocks and proto.Unmarshal as before. dohyo's bindings/hbase
// tests check every direction against the protobuf library byte for byte.

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tsuna/gohbase/pb"
)

// ProtoAppender is a call whose request can be written without ToProto.
type ProtoAppender interface {
	// AppendProto appends the request's protobuf encoding, preceded by its
	// length as a varint, to b; ok is false (and b unchanged) when the call
	// has options the hand encoding does not cover: use ToProto then.
	AppendProto(b []byte) (out []byte, ok bool)
}

// ResponseDecoder is a call that can decode its response without
// NewResponse and proto.Unmarshal.
type ResponseDecoder interface {
	// DecodeResponse decodes b, the response message's bytes; ok is false
	// when b holds anything the hand decoding does not cover (the caller
	// then decodes b with proto.Unmarshal, which also reports errors).
	DecodeResponse(b []byte) (m proto.Message, ok bool)
}

// Protobuf tags (field number and wire type) of the fields written here.
const (
	tagGetRequestRegion = 1<<3 | 2
	tagGetRequestGet    = 2<<3 | 2
	tagSpecifierType    = 1<<3 | 0
	tagSpecifierValue   = 2<<3 | 2
	tagGetRow           = 1<<3 | 2
	tagGetTimeRange     = 5<<3 | 2
	tagGetMaxVersions   = 6<<3 | 0
	tagGetCacheBlocks   = 7<<3 | 0
	tagGetStoreLimit    = 8<<3 | 0
	tagGetStoreOffset   = 9<<3 | 0
	tagGetExistenceOnly = 10<<3 | 0
	tagGetConsistency   = 12<<3 | 0
	tagTimeRangeFrom    = 1<<3 | 0
	tagTimeRangeTo      = 2<<3 | 0
)

// sizeBytesField is the size of a length-delimited field of n bytes with a
// one-byte tag.
func sizeBytesField(n int) int { return 1 + protowire.SizeVarint(uint64(n)) + n }

// sizeVarintField is the size of a varint field with a one-byte tag.
func sizeVarintField(v uint64) int { return 1 + protowire.SizeVarint(v) }

// getShape is what the hand encoding of a Get needs: its sizes.
type getShape struct {
	spec                 *pb.RegionSpecifier
	specSize, trSize     int
	getSize, requestSize int
	consistency          pb.Consistency
}

func (g *Get) shape() (s getShape, ok bool) {
	if len(g.families) != 0 || g.filter != nil || g.key == nil || g.region == nil {
		return s, false
	}
	if g.consistency != DefaultConsistency && g.consistency != StrongConsistency &&
		g.consistency != TimelineConsistency {
		return s, false // ToProto panics on these; let it
	}
	s.spec = g.regionSpecifier()
	if s.spec == nil || s.spec.Type == nil || s.spec.Value == nil ||
		len(s.spec.ProtoReflect().GetUnknown()) != 0 {
		return s, false
	}
	s.specSize = sizeVarintField(uint64(int64(*s.spec.Type))) + sizeBytesField(len(s.spec.Value))
	if g.fromTimestamp != MinTimestamp {
		s.trSize += sizeVarintField(g.fromTimestamp)
	}
	if g.toTimestamp != MaxTimestamp {
		s.trSize += sizeVarintField(g.toTimestamp)
	}
	s.getSize = sizeBytesField(len(g.key)) + sizeBytesField(s.trSize)
	if g.maxVersions != DefaultMaxVersions {
		s.getSize += sizeVarintField(uint64(g.maxVersions))
	}
	if g.cacheBlocks != DefaultCacheBlocks {
		s.getSize += 2
	}
	if g.storeLimit != DefaultMaxResultsPerColumnFamily {
		s.getSize += sizeVarintField(uint64(g.storeLimit))
	}
	if g.storeOffset != 0 {
		s.getSize += sizeVarintField(uint64(g.storeOffset))
	}
	if g.existsOnly {
		s.getSize += 2
	}
	if g.consistency != DefaultConsistency {
		s.consistency = pb.Consistency_STRONG
		if g.consistency == TimelineConsistency {
			s.consistency = pb.Consistency_TIMELINE
		}
		s.getSize += sizeVarintField(uint64(int64(s.consistency)))
	}
	s.requestSize = sizeBytesField(s.specSize) + sizeBytesField(s.getSize)
	return s, true
}

// AppendProto writes what proto.Marshal writes for ToProto's GetRequest,
// preceded by its length.
func (g *Get) AppendProto(b []byte) ([]byte, bool) {
	s, ok := g.shape()
	if !ok {
		return b, false
	}
	b = protowire.AppendVarint(b, uint64(s.requestSize))
	b = append(b, tagGetRequestRegion)
	b = protowire.AppendVarint(b, uint64(s.specSize))
	b = append(b, tagSpecifierType)
	b = protowire.AppendVarint(b, uint64(int64(*s.spec.Type)))
	b = append(b, tagSpecifierValue)
	b = protowire.AppendBytes(b, s.spec.Value)
	b = append(b, tagGetRequestGet)
	b = protowire.AppendVarint(b, uint64(s.getSize))
	b = append(b, tagGetRow)
	b = protowire.AppendBytes(b, g.key)
	b = append(b, tagGetTimeRange)
	b = protowire.AppendVarint(b, uint64(s.trSize))
	if g.fromTimestamp != MinTimestamp {
		b = append(b, tagTimeRangeFrom)
		b = protowire.AppendVarint(b, g.fromTimestamp)
	}
	if g.toTimestamp != MaxTimestamp {
		b = append(b, tagTimeRangeTo)
		b = protowire.AppendVarint(b, g.toTimestamp)
	}
	if g.maxVersions != DefaultMaxVersions {
		b = append(b, tagGetMaxVersions)
		b = protowire.AppendVarint(b, uint64(g.maxVersions))
	}
	if g.cacheBlocks != DefaultCacheBlocks {
		b = append(b, tagGetCacheBlocks, boolByte(g.cacheBlocks))
	}
	if g.storeLimit != DefaultMaxResultsPerColumnFamily {
		b = append(b, tagGetStoreLimit)
		b = protowire.AppendVarint(b, uint64(g.storeLimit))
	}
	if g.storeOffset != 0 {
		b = append(b, tagGetStoreOffset)
		b = protowire.AppendVarint(b, uint64(g.storeOffset))
	}
	if g.existsOnly {
		b = append(b, tagGetExistenceOnly, 1)
	}
	if g.consistency != DefaultConsistency {
		b = append(b, tagGetConsistency)
		b = protowire.AppendVarint(b, uint64(int64(s.consistency)))
	}
	return b, true
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// CellBlockAppender is a call that writes its request message and its cell
// block straight into the buffer the RPC is sent from, instead of
// SerializeCellBlocks' separate message and block.
type CellBlockAppender interface {
	// CellBlockLen is the length of the cell block AppendCellBlock writes;
	// ok false: send the call with SerializeCellBlocks.
	CellBlockLen() (n uint32, ok bool)
	// AppendCellBlockRequest appends the request message that goes with
	// the cell block, preceded by its length as a varint.
	AppendCellBlockRequest(b []byte) []byte
	// AppendCellBlock appends the cell block.
	AppendCellBlock(b []byte) []byte
}

// resultScalars holds what a decoded Result's fields point to.
type resultScalars struct {
	count                  int32
	exists, stale, partial bool
}

// resultFields is a Result read by decodeResult: the value of each of its
// fields 2 to 5 and whether it was present.
type resultFields struct {
	vals [6]uint64
	set  [6]bool
}

// decodeResult reads b as a Result carrying only associated_cell_count,
// exists, stale and partial, each at most once; ok is false otherwise.
func decodeResult(b []byte) (f resultFields, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.VarintType || num < 2 || num > 5 || f.set[num] {
			return f, false
		}
		v, m := protowire.ConsumeVarint(b[n:])
		if m < 0 {
			return f, false
		}
		f.vals[num], f.set[num], b = v, true, b[n+m:]
	}
	return f, true
}

// fill sets r's fields as proto.Unmarshal would, pointing into s.
func (f *resultFields) fill(r *pb.Result, s *resultScalars) {
	if f.set[2] {
		s.count = int32(f.vals[2])
		r.AssociatedCellCount = &s.count
	}
	if f.set[3] {
		s.exists = protowire.DecodeBool(f.vals[3])
		r.Exists = &s.exists
	}
	if f.set[4] {
		s.stale = protowire.DecodeBool(f.vals[4])
		r.Stale = &s.stale
	}
	if f.set[5] {
		s.partial = protowire.DecodeBool(f.vals[5])
		r.Partial = &s.partial
	}
}

// responseFields reads the top level of a GetResponse or MutateResponse:
// field 1 (the Result, bytes) and, when scalar2 is set, field 2 (a varint),
// each at most once; ok is false for anything else.
func responseFields(b []byte, scalar2 bool) (result []byte, hasResult bool, v2 uint64, has2 bool, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false, 0, false, false
		}
		switch {
		case num == 1 && typ == protowire.BytesType && !hasResult:
			v, m := protowire.ConsumeBytes(b[n:])
			if m < 0 {
				return nil, false, 0, false, false
			}
			result, hasResult, b = v, true, b[n+m:]
		case num == 2 && typ == protowire.VarintType && scalar2 && !has2:
			v, m := protowire.ConsumeVarint(b[n:])
			if m < 0 {
				return nil, false, 0, false, false
			}
			v2, has2, b = v, true, b[n+m:]
		default:
			return nil, false, 0, false, false
		}
	}
	return result, hasResult, v2, has2, true
}

// getResponse is a decoded GetResponse in one allocation.
type getResponse struct {
	resp pb.GetResponse
	res  pb.Result
	s    resultScalars
}

// DecodeResponse decodes a GetResponse whose Result carries no cells of
// its own (they come in the cell block) and only the fields a region
// server sets: associated_cell_count, exists, stale, partial, each once.
// Nothing is allocated for a response it leaves to proto.Unmarshal.
func (g *Get) DecodeResponse(b []byte) (proto.Message, bool) {
	res, hasResult, _, _, ok := responseFields(b, false)
	if !ok {
		return nil, false
	}
	f, ok := decodeResult(res)
	if !ok {
		return nil, false
	}
	r := new(getResponse)
	if hasResult {
		r.resp.Result = &r.res
		f.fill(&r.res, &r.s)
	}
	return &r.resp, true
}

// mutateResponse is a decoded MutateResponse in one allocation.
type mutateResponse struct {
	resp      pb.MutateResponse
	res       pb.Result
	s         resultScalars
	processed bool
}

// DecodeResponse decodes a MutateResponse whose Result (if any) carries
// no cells of its own, as DecodeResponse of a Get, and its processed flag.
func (m *Mutate) DecodeResponse(b []byte) (proto.Message, bool) {
	res, hasResult, processed, hasProcessed, ok := responseFields(b, true)
	if !ok {
		return nil, false
	}
	f, ok := decodeResult(res)
	if !ok {
		return nil, false
	}
	r := new(mutateResponse)
	if hasResult {
		r.resp.Result = &r.res
		f.fill(&r.res, &r.s)
	}
	if hasProcessed {
		r.processed = protowire.DecodeBool(processed)
		r.resp.Processed = &r.processed
	}
	return &r.resp, true
}
