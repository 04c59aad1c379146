package cqlserver

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

var allVersions = []primitive.ProtocolVersion{primitive.ProtocolVersion3, primitive.ProtocolVersion4, primitive.ProtocolVersion5}

func readyClient(t *testing.T, ts *testServer, v primitive.ProtocolVersion) *client {
	t.Helper()
	c := ts.pipeClient(t, v)
	c.startup("")
	return c
}

func ptr[T any](v T) *T { return &v }

func TestQueryOptionsReachBackend(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			opts := &message.QueryOptions{
				Consistency:       primitive.ConsistencyLevelLocalQuorum,
				PositionalValues:  []*primitive.Value{primitive.NewValue(be32(5)), primitive.NewNullValue()},
				PageSize:          7,
				PagingState:       []byte{1, 2, 3},
				SerialConsistency: ptr(primitive.ConsistencyLevelLocalSerial),
				DefaultTimestamp:  ptr(int64(1234567)),
			}
			if v >= primitive.ProtocolVersion4 {
				opts.PositionalValues = append(opts.PositionalValues, primitive.NewUnsetValue())
			}
			c.rows("SELECT * FROM ks.t WHERE k = ? AND v = ?", opts)
			got := ts.fake.lastRequest()
			if got.Consistency != bindings.LocalQuorum || got.SerialConsistency != bindings.LocalSerial {
				t.Errorf("consistency %v/%v", got.Consistency, got.SerialConsistency)
			}
			if got.PageSize != 7 || !bytes.Equal(got.PagingState, []byte{1, 2, 3}) {
				t.Errorf("paging %d %v", got.PageSize, got.PagingState)
			}
			if !got.HasTimestamp || got.Timestamp != 1234567 {
				t.Errorf("timestamp %v %d", got.HasTimestamp, got.Timestamp)
			}
			if !bytes.Equal(got.Values[0].Bytes, be32(5)) || got.Values[1].Bytes != nil || got.Values[1].Unset {
				t.Errorf("values %+v", got.Values)
			}
			if v >= primitive.ProtocolVersion4 && !got.Values[2].Unset {
				t.Errorf("value 2 not unset: %+v", got.Values[2])
			}
			// Named values keep their names.
			c.rows("SELECT * FROM ks.t WHERE k = :key", &message.QueryOptions{
				Consistency: primitive.ConsistencyLevelOne,
				NamedValues: map[string]*primitive.Value{"key": primitive.NewValue(be32(9))},
			})
			got = ts.fake.lastRequest()
			if len(got.Names) != 1 || got.Names[0] != "key" || !bytes.Equal(got.Values[0].Bytes, be32(9)) {
				t.Errorf("named values: %v %+v", got.Names, got.Values)
			}
		})
	}
}

func TestRowsMetadataAndTypes(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			r := c.rows("SELECT * FROM ks.t", nil)
			if r.Metadata.Flags()&primitive.RowsFlagGlobalTablesSpec == 0 {
				t.Errorf("no global table spec: %v", r.Metadata)
			}
			if r.Metadata.ColumnCount != 2 || r.Metadata.Columns[0].Name != "k" || r.Metadata.Columns[1].Type != datatype.Varchar {
				t.Errorf("metadata %v", r.Metadata)
			}
			if r.Metadata.Columns[0].Keyspace != "ks" || r.Metadata.Columns[0].Table != "t" {
				t.Errorf("table spec %v", r.Metadata.Columns[0])
			}
			if len(r.Data) != 2 || r.Data[1][1] != nil {
				t.Errorf("rows %v (null must stay null)", r.Data)
			}
		})
	}
}

func TestTypeOptions(t *testing.T) {
	udt := &cql.Type{Kind: cql.KindUDT, Keyspace: "ks", Name: "addr", Fields: []string{"street", "zip"},
		Elems: []*cql.Type{cql.Scalar(cql.KindText), cql.Scalar(cql.KindInt)}}
	cases := []struct {
		typ  *cql.Type
		v    primitive.ProtocolVersion
		want datatype.DataType
	}{
		{cql.Scalar(cql.KindAscii), 4, datatype.Ascii},
		{cql.Scalar(cql.KindBigint), 4, datatype.Bigint},
		{cql.Scalar(cql.KindBlob), 4, datatype.Blob},
		{cql.Scalar(cql.KindBoolean), 4, datatype.Boolean},
		{cql.Scalar(cql.KindCounter), 4, datatype.Counter},
		{cql.Scalar(cql.KindDecimal), 4, datatype.Decimal},
		{cql.Scalar(cql.KindDouble), 4, datatype.Double},
		{cql.Scalar(cql.KindFloat), 4, datatype.Float},
		{cql.Scalar(cql.KindInet), 4, datatype.Inet},
		{cql.Scalar(cql.KindInt), 4, datatype.Int},
		{cql.Scalar(cql.KindText), 4, datatype.Varchar},
		{cql.Scalar(cql.KindTimestamp), 4, datatype.Timestamp},
		{cql.Scalar(cql.KindTimeuuid), 4, datatype.Timeuuid},
		{cql.Scalar(cql.KindUUID), 4, datatype.Uuid},
		{cql.Scalar(cql.KindVarint), 4, datatype.Varint},
		{cql.Scalar(cql.KindDate), 4, datatype.Date},
		{cql.Scalar(cql.KindTime), 4, datatype.Time},
		{cql.Scalar(cql.KindSmallint), 4, datatype.Smallint},
		{cql.Scalar(cql.KindTinyint), 4, datatype.Tinyint},
		{cql.Scalar(cql.KindDuration), 5, datatype.Duration},
		// Older versions get custom types naming Cassandra's marshal classes.
		{cql.Scalar(cql.KindDate), 3, datatype.NewCustom("org.apache.cassandra.db.marshal.SimpleDateType")},
		{cql.Scalar(cql.KindSmallint), 3, datatype.NewCustom("org.apache.cassandra.db.marshal.ShortType")},
		{cql.Scalar(cql.KindDuration), 4, datatype.NewCustom("org.apache.cassandra.db.marshal.DurationType")},
		{cql.ListOf(cql.Scalar(cql.KindInt)), 4, datatype.NewList(datatype.Int)},
		{cql.SetOf(cql.Scalar(cql.KindText)), 4, datatype.NewSet(datatype.Varchar)},
		{cql.FrozenOf(cql.MapOf(cql.Scalar(cql.KindText), cql.ListOf(cql.Scalar(cql.KindUUID)))), 4,
			datatype.NewMap(datatype.Varchar, datatype.NewList(datatype.Uuid))},
		{cql.TupleOf(cql.Scalar(cql.KindInt), cql.Scalar(cql.KindBlob)), 3, datatype.NewTuple(datatype.Int, datatype.Blob)},
		{udt, 4, mustUDT(t)},
		// Vectors are custom types on every version (as Cassandra 5.0 sends them).
		{cql.VectorOf(cql.Scalar(cql.KindFloat), 3), 4,
			datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)")},
		{cql.ListOf(cql.VectorOf(cql.Scalar(cql.KindText), 2)), 5,
			datatype.NewList(datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UTF8Type , 2)"))},
		// Vectors of composites name their elements' classes, as Cassandra
		// 5.0.9 does (a frozen UDT wrapped in FrozenType, a tuple not).
		{cql.VectorOf(cql.TupleOf(cql.Scalar(cql.KindInt), cql.Scalar(cql.KindText)), 2), 4,
			datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.TupleType(" +
				"org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type) , 2)")},
		{cql.VectorOf(udt, 2), 5,
			datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UserType(ks,61646472," +
				"737472656574:org.apache.cassandra.db.marshal.UTF8Type,7a6970:org.apache.cassandra.db.marshal.Int32Type) , 2)")},
		{cql.VectorOf(cql.FrozenOf(udt), 2), 5,
			datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(" +
				"org.apache.cassandra.db.marshal.UserType(ks,61646472,737472656574:org.apache.cassandra.db.marshal.UTF8Type," +
				"7a6970:org.apache.cassandra.db.marshal.Int32Type)) , 2)")},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/v%d", tc.typ, tc.v), func(t *testing.T) {
			b := wire.AppendType(nil, tc.typ, byte(tc.v))
			got, err := datatype.ReadDataType(bytes.NewReader(b), tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func mustUDT(t *testing.T) datatype.DataType {
	u, err := datatype.NewUserDefined("ks", "addr", []string{"street", "zip"}, []datatype.DataType{datatype.Varchar, datatype.Int})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPrepareExecute(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			const q = "SELECT * FROM ks.t WHERE k = ?"
			m := c.do(&message.Prepare{Query: q}).Body.Message
			p, ok := m.(*message.PreparedResult)
			if !ok {
				t.Fatalf("PREPARE: %v", m)
			}
			if !bytes.Equal(p.PreparedQueryId, proxy.PreparedID("", q)) {
				t.Errorf("id %x", p.PreparedQueryId)
			}
			vm := p.VariablesMetadata
			if len(vm.Columns) != 1 || vm.Columns[0].Name != "k" || vm.Columns[0].Type != datatype.Int {
				t.Errorf("variables %v", vm)
			}
			wantPK := v >= primitive.ProtocolVersion4
			if got := len(vm.PkIndices) == 1 && vm.PkIndices[0] == 0; got != wantPK {
				t.Errorf("pk indices %v", vm.PkIndices)
			}
			if p.ResultMetadata.ColumnCount != 2 || p.ResultMetadata.Columns[1].Name != "v" {
				t.Errorf("result metadata %v", p.ResultMetadata)
			}
			if v >= primitive.ProtocolVersion5 && len(p.ResultMetadataId) == 0 {
				t.Error("no result metadata id in v5")
			}
			exec := func(skip bool, metaID []byte) *message.RowsResult {
				t.Helper()
				m := c.do(&message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: metaID, Options: &message.QueryOptions{
					Consistency: primitive.ConsistencyLevelOne, SkipMetadata: skip,
					PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))},
				}}).Body.Message
				r, ok := m.(*message.RowsResult)
				if !ok {
					t.Fatalf("EXECUTE: %v", m)
				}
				return r
			}
			metaID := p.ResultMetadataId
			if v < primitive.ProtocolVersion5 {
				metaID = nil
			}
			r := exec(true, metaID)
			if r.Metadata.Flags()&primitive.RowsFlagNoMetadata == 0 || r.Metadata.ColumnCount != 2 || len(r.Metadata.Columns) != 0 {
				t.Errorf("skip metadata: %v", r.Metadata)
			}
			if len(r.Data) != 2 {
				t.Errorf("rows %v", r.Data)
			}
			if r := exec(false, metaID); len(r.Metadata.Columns) != 2 {
				t.Errorf("full metadata: %v", r.Metadata)
			}
			if v >= primitive.ProtocolVersion5 {
				// A stale result metadata id gets the new id and full metadata.
				r := exec(true, []byte("stale"))
				if r.Metadata.Flags()&primitive.RowsFlagMetadataChanged == 0 ||
					!bytes.Equal(r.Metadata.NewResultMetadataId, p.ResultMetadataId) || len(r.Metadata.Columns) != 2 {
					t.Errorf("metadata changed: %v", r.Metadata)
				}
			}
			// An unknown id is Unprepared, carrying the id.
			m = c.do(&message.Execute{QueryId: []byte("nope"), ResultMetadataId: []byte("x"),
				Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}).Body.Message
			if u, ok := m.(*message.Unprepared); !ok || string(u.Id) != "nope" {
				t.Errorf("unknown id: %v", m)
			}
		})
	}
}

func TestBatch(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			p := c.do(&message.Prepare{Query: "INSERT INTO ks.t (k, v) VALUES (?, ?)"}).Body.Message.(*message.PreparedResult)
			b := &message.Batch{
				Type: primitive.BatchTypeUnlogged,
				Children: []*message.BatchChild{
					{Query: "INSERT INTO ks.t (k, v) VALUES (1, 'a')"},
					{Id: p.PreparedQueryId, Values: []*primitive.Value{primitive.NewValue(be32(2)), primitive.NewValue([]byte("b"))}},
				},
				Consistency:      primitive.ConsistencyLevelQuorum,
				DefaultTimestamp: ptr(int64(99)),
			}
			if m := c.do(b).Body.Message; m.(message.Result).GetResultType() != primitive.ResultTypeVoid {
				t.Fatalf("BATCH: %v", m)
			}
			got := ts.fake.batches[len(ts.fake.batches)-1]
			if got.Type != cql.BatchUnlogged || len(got.Entries) != 2 || got.Consistency != bindings.Quorum || got.Timestamp != 99 {
				t.Errorf("batch %+v", got)
			}
			if got.Entries[1].Query != "INSERT INTO ks.t (k, v) VALUES (?, ?)" || string(got.Entries[1].Values[1].Bytes) != "b" {
				t.Errorf("prepared child %+v", got.Entries[1])
			}
		})
	}
}

func TestPagingFlags(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			var all []int32
			var state []byte
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("paging does not end")
				}
				r := c.rows("SELECT * FROM ks.paged", &message.QueryOptions{Consistency: 1, PageSize: 4, PagingState: state})
				for _, row := range r.Data {
					all = append(all, int32(binary.BigEndian.Uint32(row[0])))
				}
				more := r.Metadata.Flags()&primitive.RowsFlagHasMorePages != 0
				if more != (r.Metadata.PagingState != nil) {
					t.Fatalf("HAS_MORE_PAGES=%v with paging state %v", more, r.Metadata.PagingState)
				}
				if !more {
					break
				}
				state = r.Metadata.PagingState
			}
			if fmt.Sprint(all) != "[0 1 2 3 4 5 6 7 8 9]" {
				t.Errorf("rows over pages: %v", all)
			}
		})
	}
}

func TestWarningsAndTracing(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			// The library counts a tracing id in request lengths too, so set
			// the flag on the encoded bytes.
			raw := c.encode(&message.Query{Query: "SELECT * FROM ks.warn", Options: &message.QueryOptions{Consistency: 1}}, 42)
			raw[1] |= byte(primitive.HeaderFlagTracing)
			c.writeRaw(raw)
			got := c.read()
			// The tracing id comes first, then the warnings (traces_test.go
			// checks the session it names).
			if got.Header.StreamId != 42 || !got.Header.Flags.Contains(primitive.HeaderFlagTracing) || got.Body.TracingId == nil {
				t.Errorf("header %v, tracing id %v: tracing must be answered with a tracing id", got.Header, got.Body.TracingId)
			}
			want := "[careful very careful]"
			if v < primitive.ProtocolVersion4 {
				want = "[]" // v3 has no warnings
			}
			if _, ok := got.Body.Message.(*message.RowsResult); !ok {
				t.Fatalf("got %v", got.Body.Message)
			}
			if fmt.Sprint(got.Body.Warnings) != want {
				t.Errorf("warnings %v, want %s", got.Body.Warnings, want)
			}
		})
	}
}

func TestPerRequestKeyspaceV5(t *testing.T) {
	ts := newTestServer(t, nil)
	c := readyClient(t, ts, primitive.ProtocolVersion5)
	c.rows("SELECT * FROM t", &message.QueryOptions{Consistency: 1, Keyspace: "ks"})
	if got := ts.fake.lastRequest().Keyspace; got != "ks" {
		t.Errorf("backend saw keyspace %q", got)
	}
	// The connection's own keyspace is untouched.
	if m := c.query("SELECT * FROM t", nil); m.(message.Error).GetErrorCode() != primitive.ErrorCodeInvalid {
		t.Errorf("unqualified table without USE: %v", m)
	}
	p := c.do(&message.Prepare{Query: "SELECT * FROM t WHERE k = ?", Keyspace: "ks"}).Body.Message.(*message.PreparedResult)
	if !bytes.Equal(p.PreparedQueryId, proxy.PreparedID("ks", "SELECT * FROM t WHERE k = ?")) {
		t.Errorf("prepared id %x is not MD5(keyspace+query)", p.PreparedQueryId)
	}
	m := c.query("USE ks", nil)
	if r, ok := m.(*message.SetKeyspaceResult); !ok || r.Keyspace != "ks" {
		t.Errorf("USE: %v", m)
	}
}
