package cqlserver

import (
	"bytes"
	"crypto/md5"
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// RESULT messages (native_protocol_v5.spec §4.2.5).

// resultOpts tells how to encode a Rows result.
type resultOpts struct {
	execute      bool
	skipMetadata bool                     // EXECUTE asked for NO_METADATA
	prepared     *proxy.PreparedStatement // EXECUTE: the statement run
	clientMetaID []byte                   // EXECUTE v5: result metadata id the client holds
}

func (c *conn) resultFrame(stream int16, res *bindings.Result, o resultOpts) []byte {
	var flags byte
	if res != nil && len(res.Warnings) > 0 && c.version >= 4 {
		flags |= wire.FlagWarning
	}
	f := wire.StartFrame(getBuf(), c.version, flags, stream, wire.OpResult)
	if flags&wire.FlagWarning != 0 {
		f = wire.AppendStringList(f, res.Warnings)
	}
	if res == nil {
		return wire.AppendInt(f, wire.ResultVoid)
	}
	switch res.Kind {
	case bindings.ResultRows:
		f = wire.AppendInt(f, wire.ResultRows)
		return c.appendRows(f, res, o)
	case bindings.ResultSetKeyspace:
		f = wire.AppendInt(f, wire.ResultSetKeyspace)
		return wire.AppendString(f, res.Keyspace)
	case bindings.ResultSchemaChange:
		if res.Change != nil {
			f = wire.AppendInt(f, wire.ResultSchemaChange)
			return appendSchemaChange(f, res.Change)
		}
	}
	return wire.AppendInt(f, wire.ResultVoid)
}

func (c *conn) appendRows(f []byte, res *bindings.Result, o resultOpts) []byte {
	cols := res.Columns
	if len(cols) == 0 && o.prepared != nil && o.prepared.Meta != nil {
		cols = o.prepared.Meta.Result // the backend skipped metadata
	}
	n := len(cols)
	if n == 0 && len(res.Rows) > 0 {
		n = len(res.Rows[0])
	}
	noMeta := o.execute && o.skipMetadata
	var flags int32
	var newID []byte
	if c.version >= 5 && o.prepared != nil {
		if id := currentMetadataID(o.prepared, res.Columns); !bytes.Equal(id, o.clientMetaID) {
			flags |= wire.RowsMetadataChanged
			newID, noMeta = id, false
		}
	}
	if noMeta || len(cols) != n {
		flags |= wire.RowsNoMetadata
		noMeta = true
	}
	if res.PagingState != nil {
		flags |= wire.RowsHasMorePages
	}
	global := !noMeta && n > 0 && sameTable(cols)
	if global {
		flags |= wire.RowsGlobalTableSpec
	}
	f = wire.AppendInt(f, flags)
	f = wire.AppendInt(f, int32(n))
	if res.PagingState != nil {
		f = wire.AppendBytes(f, res.PagingState)
	}
	if newID != nil {
		f = wire.AppendShortBytes(f, newID)
	}
	if !noMeta {
		f = appendColumnSpecs(f, cols, global, c.version)
	}
	f = wire.AppendInt(f, int32(len(res.Rows)))
	for _, row := range res.Rows {
		for i := 0; i < n; i++ {
			var v []byte
			if i < len(row) {
				v = row[i]
			}
			f = wire.AppendBytes(f, v)
		}
	}
	return f
}

// currentMetadataID is the result metadata id of what an EXECUTE returned:
// the prepared one while the columns are those prepared, else a digest of
// the columns returned (the schema changed since PREPARE).
func currentMetadataID(ps *proxy.PreparedStatement, got []bindings.ColumnSpec) []byte {
	if len(got) == 0 || ps.Meta == nil || sameColumns(got, ps.Meta.Result) {
		return ps.ResultMetadataID
	}
	h := md5.New()
	for _, c := range got {
		fmt.Fprintf(h, "%s.%s.%s:%s;", c.Keyspace, c.Table, c.Name, c.Type)
	}
	return h.Sum(nil)
}

func sameColumns(a, b []bindings.ColumnSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Keyspace != b[i].Keyspace || a[i].Table != b[i].Table || a[i].Name != b[i].Name || !a[i].Type.Equal(b[i].Type) {
			return false
		}
	}
	return true
}

func (c *conn) preparedFrame(stream int16, ps *proxy.PreparedStatement) []byte {
	f := wire.StartFrame(getBuf(), c.version, 0, stream, wire.OpResult)
	f = wire.AppendInt(f, wire.ResultPrepared)
	f = wire.AppendShortBytes(f, ps.ID)
	if c.version >= 5 {
		f = wire.AppendShortBytes(f, ps.ResultMetadataID)
	}
	meta := ps.Meta
	if meta == nil {
		meta = &bindings.Prepared{}
	}
	// Bind variables: <flags><columns_count>[<pk_count><pk_index>...] (v4+).
	global := len(meta.Bind) > 0 && sameTable(meta.Bind)
	var flags int32
	if global {
		flags |= wire.RowsGlobalTableSpec
	}
	f = wire.AppendInt(f, flags)
	f = wire.AppendInt(f, int32(len(meta.Bind)))
	if c.version >= 4 {
		f = wire.AppendInt(f, int32(len(meta.PKIndexes)))
		for _, i := range meta.PKIndexes {
			f = wire.AppendShort(f, i)
		}
	}
	f = appendColumnSpecs(f, meta.Bind, global, c.version)
	// Result metadata: empty (NO_METADATA, 0 columns) unless a SELECT.
	if len(meta.Result) == 0 {
		f = wire.AppendInt(f, wire.RowsNoMetadata)
		return wire.AppendInt(f, 0)
	}
	global = sameTable(meta.Result)
	flags = 0
	if global {
		flags |= wire.RowsGlobalTableSpec
	}
	f = wire.AppendInt(f, flags)
	f = wire.AppendInt(f, int32(len(meta.Result)))
	return appendColumnSpecs(f, meta.Result, global, c.version)
}

// appendSchemaChange writes <change_type><target><options>, shared by the
// Schema_change result and the SCHEMA_CHANGE event.
func appendSchemaChange(f []byte, ch *bindings.SchemaChange) []byte {
	f = wire.AppendString(f, string(ch.Type))
	f = wire.AppendString(f, string(ch.Target))
	f = wire.AppendString(f, ch.Keyspace)
	if ch.Target != bindings.TargetKeyspace {
		f = wire.AppendString(f, ch.Object)
	}
	if ch.Target == bindings.TargetFunction || ch.Target == bindings.TargetAggr {
		f = wire.AppendStringList(f, ch.Args)
	}
	return f
}

func encodeEvent(f []byte, ch *bindings.SchemaChange) []byte {
	f = wire.AppendString(f, string(primitive.EventTypeSchemaChange))
	return appendSchemaChange(f, ch)
}
