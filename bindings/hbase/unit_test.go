package hbase

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want Config
	}{
		{"hbase://127.0.0.1:2181", Config{ZooKeeper: "127.0.0.1:2181"}},
		{"hbase://127.0.0.1", Config{ZooKeeper: "127.0.0.1:2181"}},
		{"HBASE://zk1:2181,zk2,zk3:2182/hbase-unsecure", Config{ZooKeeper: "zk1:2181,zk2:2181,zk3:2182", ZKRoot: "/hbase-unsecure"}},
		{"hbase://[::1]:2181/", Config{ZooKeeper: "[::1]:2181"}},
		{"hbase://127.0.0.1:2181?salt=16&regions=8&compression=gz&encoding=fast_diff",
			Config{ZooKeeper: "127.0.0.1:2181", Salt: 16, Table: TableOptions{Regions: 8, Compression: "GZ", Encoding: "FAST_DIFF"}}},
		{"hbase://h:1?catalog=staging.v2&timeout=3s&ddl_timeout=1m",
			Config{ZooKeeper: "h:1", Catalog: "staging.v2", OpTimeout: 3 * time.Second, DDLTimeout: time.Minute}},
		{"hbase://h?compression=GZIP&encoding=none&salt=0", Config{ZooKeeper: "h:2181", Table: TableOptions{Compression: "GZ", Encoding: "NONE"}}},
	}
	for _, tt := range tests {
		got, err := ParseURL(tt.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.url, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseURL(%q):\n got  %+v\n want %+v", tt.url, got, tt.want)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	tests := []struct{ url, wantMsg string }{
		{"cassandra://h:9042", "want hbase://"},
		{"hbase:h:2181", "want hbase://"},
		{"hbase://", "missing ZooKeeper host"},
		{"hbase://?salt=1", "missing ZooKeeper host"},
		{"hbase://h1,,h2", "empty host"},
		{"hbase://h:99999", "bad port"},
		{"hbase://h:abc", "bad port"},
		{"hbase://user@h:2181", "user info"},
		{"hbase://h#frag", "fragment"},
		{"hbase://h?salt=300", "salt"},
		{"hbase://h?salt=-1", "salt"},
		{"hbase://h?regions=0", "regions"},
		{"hbase://h?regions=many", "regions"},
		{"hbase://h?compression=brotli", "compression"},
		{"hbase://h?encoding=zip", "encoding"},
		{"hbase://h?catalog=a/b", "catalog"},
		{"hbase://h?timeout=soon", "timeout"},
		{"hbase://h?ddl_timeout=-1s", "ddl_timeout"},
		{"hbase://h?salt=1&salt=2", "given 2 times"},
		{"hbase://h?region=4", `unknown option "region"`},
	}
	for _, tt := range tests {
		_, err := ParseURL(tt.url)
		if err == nil {
			t.Errorf("ParseURL(%q): got no error, want one mentioning %q", tt.url, tt.wantMsg)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("ParseURL(%q): got %q, want it to mention %q", tt.url, err, tt.wantMsg)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{},
		{ZooKeeper: "nohostport"},
		{ZooKeeper: ":2181"},
		{ZooKeeper: "h:2181", ZKRoot: "hbase"},
		{ZooKeeper: "h:2181", Salt: 257},
		{ZooKeeper: "h:2181", Table: TableOptions{Compression: "XZ"}},
		{ZooKeeper: "h:2181", Catalog: "has space"},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v): got nil, want an error", c)
		}
	}
	if err := (Config{ZooKeeper: "127.0.0.1:2181"}).Validate(); err != nil {
		t.Errorf("Validate(minimal): %v", err)
	}
}

func TestParseTableOptions(t *testing.T) {
	got, err := parseTableOptions(nil)
	if want := (TableOptions{Compression: DefaultCompression, Encoding: DefaultEncoding}); err != nil || got != want {
		t.Errorf("defaults: got %+v, %v; want %+v", got, err, want)
	}
	got, err = parseTableOptions(map[string]string{"regions": "12", "compression": "snappy", "encoding": "PREFIX"})
	if want := (TableOptions{Regions: 12, Compression: "SNAPPY", Encoding: "PREFIX"}); err != nil || got != want {
		t.Errorf("set: got %+v, %v; want %+v", got, err, want)
	}
	if _, err := parseTableOptions(map[string]string{"ttl": "10"}); err == nil {
		t.Errorf("unknown option: got nil error")
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		ks, name, id string
		want         string
	}{
		{"ks", "users", "5f1d2c3a-0000-1000-8000-00aabbccddee", "ks:t_users_5f1d2c3a-0000-1000-8000-00aabbccddee"},
		{"My_KS", "Events2", "id1", "My_KS:t_Events2_id1"},
		{"hbase", "t", "1", "hbase_ks:t_t_1"},
		{"DEFAULT", "t", "1", "DEFAULT_ks:t_t_1"},
		{"dohyo", "catalog", "1", "dohyo_ks:t_catalog_1"},
		{"sp ace", "wéird", "a_b/c", "sp_ace:t_w__ird_a_x5fb_x2fc"},
		{"", "", "", "_:t____"},
		{strings.Repeat("k", 60), strings.Repeat("n", 60), "x", strings.Repeat("k", 48) + ":t_" + strings.Repeat("n", 48) + "_x"},
	}
	for _, tt := range tests {
		got := tableName(&kv.TableSpec{Keyspace: tt.ks, Name: tt.name, ID: tt.id})
		if got != tt.want {
			t.Errorf("tableName(%q, %q, %q) = %q, want %q", tt.ks, tt.name, tt.id, got, tt.want)
		}
	}
	// Distinct IDs never share a table.
	a := tableName(&kv.TableSpec{Keyspace: "k", Name: "t", ID: "a_b"})
	b := tableName(&kv.TableSpec{Keyspace: "k", Name: "t", ID: "a/b"})
	if a == b {
		t.Errorf("IDs a_b and a/b map to the same table %q", a)
	}
	if ns, q := splitTableName("ns:t_x"); ns != "ns" || q != "t_x" {
		t.Errorf("splitTableName: got %q, %q", ns, q)
	}
	if ns, q := splitTableName("plain"); ns != "default" || q != "plain" {
		t.Errorf("splitTableName(plain): got %q, %q", ns, q)
	}
}

func TestBelow(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{nil, nil},
		{[]byte{}, nil},
		{[]byte{0}, nil},
		{[]byte{5}, []byte{4}},
		{[]byte{1, 2, 0}, []byte{1, 2}},
		{[]byte{1, 2, 3}, []byte{1, 2, 2}},
	}
	for _, tt := range tests {
		got := below(tt.in)
		if !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("below(%x) = %x, want %x", tt.in, got, tt.want)
		}
		if got != nil && bytes.Compare(got, tt.in) >= 0 {
			t.Errorf("below(%x) = %x is not below", tt.in, got)
		}
	}
}

// TestRowPutCellBlocks decodes the Put's cell blocks with gohbase's own
// KeyValue decoder: per-cell timestamps, empty qualifiers and values
// survive.
func TestRowPutCellBlocks(t *testing.T) {
	cells := []kv.Cell{
		{Qualifier: []byte{}, Timestamp: 1, Value: []byte{0}},
		{Qualifier: []byte("\x02name"), Timestamp: 1_700_000_000_000_000, Value: []byte("value")},
		{Qualifier: []byte("\x03list"), Timestamp: 1_699_999_999_999_999, Value: nil},
	}
	p, err := newRowPut(context.Background(), []byte("ns:t"), []byte("row\x00key"), cells, false)
	if err != nil {
		t.Fatal(err)
	}
	msg, blocks, size := p.SerializeCellBlocks()
	req := msg.(*pb.MutateRequest)
	if got := req.GetMutation().GetAssociatedCellCount(); got != int32(len(cells)) {
		t.Fatalf("associated cell count %d, want %d", got, len(cells))
	}
	if req.GetMutation().GetMutateType() != pb.MutationProto_PUT || string(req.GetMutation().GetRow()) != "row\x00key" {
		t.Fatalf("mutation: got %v", req.GetMutation())
	}
	if len(blocks) != 1 || len(blocks[0]) != cap(blocks[0]) {
		t.Fatalf("%d blocks; the first %d bytes of room %d: want one block sized exactly (keyValueLen)",
			len(blocks), len(blocks[0]), cap(blocks[0]))
	}
	all := bytes.Join(blocks, nil)
	if int(size) != len(all) {
		t.Fatalf("size %d, blocks hold %d bytes", size, len(all))
	}
	g, err := hrpc.NewGet(context.Background(), []byte("t"), []byte("r"))
	if err != nil {
		t.Fatal(err)
	}
	resp := &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: req.Mutation.AssociatedCellCount}}
	n, err := g.DeserializeCellBlocks(resp, all)
	if err != nil || int(n) != len(all) {
		t.Fatalf("decode: read %d of %d bytes, %v", n, len(all), err)
	}
	for i, c := range resp.Result.Cell {
		want := cells[i]
		if string(c.Row) != "row\x00key" || string(c.Family) != family || !bytes.Equal(c.Qualifier, want.Qualifier) ||
			int64(c.GetTimestamp()) != want.Timestamp || !bytes.Equal(c.Value, want.Value) || c.GetCellType() != pb.CellType_PUT {
			t.Errorf("cell %d: got %v, want %+v", i, c, want)
		}
	}
	// The protobuf form carries the same timestamps.
	pm := p.ToProto().(*pb.MutateRequest)
	qvs := pm.GetMutation().GetColumnValue()[0].GetQualifierValue()
	for i, qv := range qvs {
		if int64(qv.GetTimestamp()) != cells[i].Timestamp {
			t.Errorf("proto cell %d: timestamp %d, want %d", i, qv.GetTimestamp(), cells[i].Timestamp)
		}
	}
}

func TestGroupRows(t *testing.T) {
	ts := &kv.TableSpec{Keyspace: "k", Name: "t", ID: "1"}
	other := &kv.TableSpec{Keyspace: "k", Name: "u", ID: "2"}
	live := func(s string) []byte { return kv.CellValue{Data: []byte(s)}.Encode() }
	tomb := kv.CellValue{Tombstone: true, Expiry: 1}.Encode()
	c := func(q string, ts int64, v []byte) kv.Cell {
		return kv.Cell{Qualifier: []byte(q), Timestamp: ts, Value: v}
	}
	groups, err := groupRows([]kv.Mutation{
		{Table: ts, Row: []byte("r1"), Cells: []kv.Cell{c("a", 10, live("x")), c("b", 5, live("y"))}},
		{Table: other, Row: []byte("r1"), Cells: []kv.Cell{c("a", 1, live("o"))}},
		{Table: ts, Row: []byte("r1"), Cells: []kv.Cell{c("a", 10, tomb), c("b", 4, live("z"))}},
		{Table: ts, Row: []byte("r2")},
	}, &tableNames{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("got %d groups, want 2 (empty mutations are dropped)", len(groups))
	}
	g := groups[0]
	if string(g.table) != "k:t_t_1" || string(g.row) != "r1" || len(g.cells) != 2 {
		t.Fatalf("group 0: got table %q row %q %d cells", g.table, g.row, len(g.cells))
	}
	if !bytes.Equal(g.cells[0].Value, tomb) {
		t.Errorf("equal-timestamp tie in one call: got %x, want the tombstone (Resolve)", g.cells[0].Value)
	}
	if g.cells[1].Timestamp != 5 {
		t.Errorf("older version in one call: got ts %d, want 5", g.cells[1].Timestamp)
	}
	if _, err := groupRows([]kv.Mutation{{Table: ts, Row: []byte("r"), Cells: []kv.Cell{c("a", -1, live("x"))}}}, &tableNames{}); !errors.Is(err, bindings.ErrUnsupported) {
		t.Errorf("negative timestamp: got %v, want an Unsupported error", err)
	}
	if _, err := groupRows([]kv.Mutation{{Table: ts, Row: nil, Cells: []kv.Cell{c("a", 1, live("x"))}}}, &tableNames{}); err == nil {
		t.Errorf("empty row key: got nil error")
	}

	// One mutation (a point write) takes the path without an index: its
	// repeated qualifiers are resolved the same way, and cells without
	// repeats are used as they are.
	one := []kv.Cell{c("a", 10, live("x")), c("b", 5, live("y")), c("a", 10, tomb), c("b", 4, live("z"))}
	groups, err = groupRows([]kv.Mutation{{Table: ts, Row: []byte("r1"), Cells: one}}, &tableNames{})
	if err != nil || len(groups) != 1 {
		t.Fatalf("one mutation: %d groups, %v", len(groups), err)
	}
	if g := groups[0]; string(g.table) != "k:t_t_1" || len(g.cells) != 2 || !bytes.Equal(g.cells[0].Value, tomb) || g.cells[1].Timestamp != 5 {
		t.Fatalf("one mutation with repeats: got table %q, cells %+v", g.table, g.cells)
	}
	if !bytes.Equal(one[0].Value, live("x")) {
		t.Fatal("resolving repeats changed the caller's cells")
	}
	plain := one[:2]
	groups, _ = groupRows([]kv.Mutation{{Table: ts, Row: []byte("r1"), Cells: plain}}, &tableNames{})
	if len(groups) != 1 || len(groups[0].cells) != 2 || &groups[0].cells[0] != &plain[0] {
		t.Fatalf("one mutation without repeats: want its cells as they are, got %+v", groups)
	}
	if groups, err := groupRows([]kv.Mutation{{Table: ts, Row: []byte("r1")}}, &tableNames{}); err != nil || len(groups) != 0 {
		t.Fatalf("one empty mutation: got %d groups, %v", len(groups), err)
	}
	if _, err := groupRows([]kv.Mutation{{Table: nil, Row: []byte("r1")}}, &tableNames{}); err == nil {
		t.Fatal("one mutation without table: got nil error")
	}
	many := make([]kv.Cell, 0, 2*smallCells)
	for i := range 2 * smallCells {
		many = append(many, c(strconv.Itoa(i%smallCells), int64(i), live("v")))
	}
	if got := dedupCells(many); len(got) != smallCells || got[0].Timestamp != smallCells {
		t.Fatalf("dedupCells of %d cells with %d qualifiers: %d cells, first ts %d", len(many), smallCells, len(got), got[0].Timestamp)
	}
}

func TestUnavailableError(t *testing.T) {
	s := &Store{zk: "127.0.0.1:1"}
	err := s.wrapErr(context.Background(), "get", context.DeadlineExceeded)
	var be *bindings.Error
	if !errors.As(err, &be) || be.Code != bindings.CodeUnavailable {
		t.Fatalf("got %v, want a CQL Unavailable error", err)
	}
	if !errors.Is(err, bindings.ErrBadConn) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, bindings.ErrUnavailable) {
		t.Errorf("got %v: want it to match ErrBadConn, ErrUnavailable and DeadlineExceeded", err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.wrapErr(cctx, "get", context.Canceled); !errors.Is(err, context.Canceled) || errors.As(err, &be) {
		t.Errorf("cancelled caller: got %v, want a plain context.Canceled", err)
	}
}

// TestOpenUnreachable checks that an HBase that does not answer fails Open
// with Unavailable by its own op timeout rather than hanging (nothing
// listens on port 1): the caller's 30 s deadline has not passed when it
// fails — a fact, not a latency.
func TestOpenUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := openEngineURL(ctx, "hbase://127.0.0.1:1?timeout=1500ms")
	if err == nil {
		t.Fatal("Open on an unreachable ZooKeeper: got nil error")
	}
	if !errors.Is(err, bindings.ErrUnavailable) || !errors.Is(err, bindings.ErrBadConn) {
		t.Errorf("got %v, want Unavailable and ErrBadConn", err)
	}
	if ctx.Err() != nil {
		t.Errorf("Open failed after %v, once the caller's deadline had passed: want its own 1.5s op timeout to end it", time.Since(start))
	}
}

func TestTableNamesCache(t *testing.T) {
	var n tableNames
	a := &kv.TableSpec{Keyspace: "ks", Name: "users", ID: "11111111-2222-3333-4444-555555555555"}
	fq, b := n.of(a)
	if fq != tableName(a) || string(b) != fq {
		t.Fatalf("of = %q, %q; tableName = %q", fq, b, tableName(a))
	}
	// Another spec of the same table (a later schema version) shares the
	// entry; another ID is another table.
	again := *a
	if fq2, b2 := n.of(&again); fq2 != fq || &b2[0] != &b[0] {
		t.Fatalf("same table: got %q (shared bytes %v)", fq2, &b2[0] == &b[0])
	}
	other := *a
	other.ID = "66666666-2222-3333-4444-555555555555"
	if fq3, _ := n.of(&other); fq3 == fq || fq3 != tableName(&other) {
		t.Fatalf("other ID: got %q", fq3)
	}
	for i := 0; i < 2*maxTableNames; i++ {
		n.of(&kv.TableSpec{Keyspace: "ks", Name: "t", ID: strconv.Itoa(i)})
	}
	if len(n.m) > maxTableNames {
		t.Fatalf("%d names kept, at most %d expected", len(n.m), maxTableNames)
	}
}

func TestOneRPCCtx(t *testing.T) {
	near, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if ctx, done := oneRPCCtx(near, 10*time.Second); ctx != near {
		t.Fatal("a caller's deadline within the timeout: want the caller's context itself")
	} else {
		done()
		if near.Err() != nil {
			t.Fatal("the returned cancel must not cancel the caller's context")
		}
	}
	for _, parent := range []context.Context{context.Background(), func() context.Context {
		far, c := context.WithTimeout(context.Background(), time.Hour)
		t.Cleanup(c)
		return far
	}()} {
		ctx, done := oneRPCCtx(parent, 10*time.Second)
		dl, ok := ctx.Deadline()
		if ctx == parent || !ok || time.Until(dl) > 10*time.Second {
			t.Fatalf("no or a far deadline: want a derived context bounded by the timeout, got deadline %v (%v)", dl, ok)
		}
		done()
		if ctx.Err() == nil {
			t.Fatal("cancel did not cancel the derived context")
		}
	}
}
