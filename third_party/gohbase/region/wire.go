// Copyright (C) 2015  The GoHBase Authors.  All rights reserved.
// This file is part of GoHBase.
// Use of this source code is governed by the Apache License 2.0
// that can be found in the COPYING file.

package region

// dohyo patch: the RPC headers written and read without protobuf's
// reflection. Every call's RequestHeader (call id, method, request_param,
// the cell block's length) is written here in the order proto.Marshal
// writes it; a ResponseHeader holding only a call id and a cell block
// length (every answer that is not an exception) is read here, anything
// else through proto.Unmarshal as before. dohyo's bindings/hbase tests
// check both against the protobuf library.

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tsuna/gohbase/pb"
)

const (
	tagHeaderCallID        = 1<<3 | 0
	tagHeaderMethodName    = 3<<3 | 2
	tagHeaderRequestParam  = 4<<3 | 0
	tagHeaderCellBlockMeta = 5<<3 | 2
	tagMetaLength          = 1<<3 | 0
)

// appendRequestHeader appends a RequestHeader with call_id, method_name,
// request_param (true) and, with meta, cell_block_meta{length: cellLen},
// preceded by its length as a varint.
func appendRequestHeader(b []byte, id uint32, method string, meta bool, cellLen uint32) []byte {
	metaSize := 1 + protowire.SizeVarint(uint64(cellLen))
	size := 1 + protowire.SizeVarint(uint64(id)) +
		1 + protowire.SizeVarint(uint64(len(method))) + len(method) + 2
	if meta {
		size += 1 + protowire.SizeVarint(uint64(metaSize)) + metaSize
	}
	b = protowire.AppendVarint(b, uint64(size))
	b = append(b, tagHeaderCallID)
	b = protowire.AppendVarint(b, uint64(id))
	b = append(b, tagHeaderMethodName)
	b = protowire.AppendString(b, method)
	b = append(b, tagHeaderRequestParam, 1)
	if meta {
		b = append(b, tagHeaderCellBlockMeta)
		b = protowire.AppendVarint(b, uint64(metaSize))
		b = append(b, tagMetaLength)
		b = protowire.AppendVarint(b, uint64(cellLen))
	}
	return b
}

// requestHeaderRoom is the most appendRequestHeader appends for method:
// the largest call id and cell block length, with the cell block meta.
func requestHeaderRoom(method string) int {
	inner := 1 + protowire.SizeVarint(1<<32-1) +
		1 + protowire.SizeVarint(uint64(len(method))) + len(method) + 2 +
		1 + 1 + 1 + protowire.SizeVarint(1<<32-1)
	return protowire.SizeVarint(uint64(inner)) + inner
}

// responseHeader is what receive needs of a ResponseHeader.
type responseHeader struct {
	callID    uint32
	hasCallID bool
	exception *pb.ExceptionResponse
	cellLen   uint32
}

// decodeResponseHeader reads b as proto.Unmarshal into a ResponseHeader
// would, by hand when b holds at most a call id and a cell block meta with
// a length, each once; otherwise through proto.Unmarshal.
func decodeResponseHeader(b []byte) (responseHeader, error) {
	if h, ok := decodeResponseHeaderFast(b); ok {
		return h, nil
	}
	var header pb.ResponseHeader
	if err := proto.Unmarshal(b, &header); err != nil {
		return responseHeader{}, err
	}
	h := responseHeader{exception: header.Exception}
	if header.CallId != nil {
		h.callID, h.hasCallID = *header.CallId, true
	}
	if header.CellBlockMeta != nil {
		h.cellLen = header.CellBlockMeta.GetLength()
	}
	return h, nil
}

func decodeResponseHeaderFast(b []byte) (h responseHeader, ok bool) {
	seenMeta := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return h, false
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType && !h.hasCallID:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return h, false
			}
			h.callID, h.hasCallID, b = uint32(v), true, b[m:]
		case num == 3 && typ == protowire.BytesType && !seenMeta:
			meta, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return h, false
			}
			b, seenMeta = b[m:], true
			if len(meta) == 0 {
				continue
			}
			t, tt, l := protowire.ConsumeTag(meta)
			if l < 0 || t != 1 || tt != protowire.VarintType {
				return h, false
			}
			v, vl := protowire.ConsumeVarint(meta[l:])
			if vl < 0 || l+vl != len(meta) {
				return h, false
			}
			h.cellLen = uint32(v)
		default:
			return h, false
		}
	}
	return h, true
}

// maxSendBuf bounds the send buffers kept for reuse.
const maxSendBuf = 64 << 10
