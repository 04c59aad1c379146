package hbase

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"github.com/tsuna/gohbase/region"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

func testRegion(id uint64, start, stop string) hrpc.RegionInfo {
	return region.NewInfo(id, []byte("ns"), []byte("t"), []byte(fmt.Sprintf("t,%s,%d", start, id)), []byte(start), []byte(stop))
}

func TestCellFromBlock(t *testing.T) {
	cells := []kv.Cell{
		{Qualifier: []byte{}, Timestamp: 1, Value: []byte{0}},
		{Qualifier: []byte("\x02title"), Timestamp: 1796318541989502, Value: bytes.Repeat([]byte{'x'}, 100)},
		{Qualifier: []byte("q"), Timestamp: 7, Value: []byte{}},
	}
	var b []byte
	for i := range cells {
		b = appendKeyValue(b, []byte("row"), familyBytes, &cells[i])
	}
	for i, want := range cells {
		c, fam, n, err := cellFromBlock(b)
		if err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
		if string(fam) != family || !reflect.DeepEqual(c, want) {
			t.Fatalf("cell %d: got %q %+v, want %+v", i, fam, c, want)
		}
		if c.Qualifier == nil {
			t.Fatalf("cell %d: nil qualifier", i)
		}
		b = b[n:]
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes left", len(b))
	}
	good := appendKeyValue(nil, []byte("row"), familyBytes, &cells[1])
	for _, bad := range [][]byte{good[:11], good[:len(good)-1], append([]byte{0, 0, 0, 9}, good[4:]...)} {
		if _, _, _, err := cellFromBlock(bad); err == nil {
			t.Errorf("no error for %x", bad)
		}
	}
}

func TestMultiGetRequest(t *testing.T) {
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	m := newMultiGet(context.Background(), []byte("ns:t"), keys)
	m.SetRegion(testRegion(1, "", "c"))
	req := m.ToProto().(*pb.MultiRequest)
	if m.sent != 2 || len(req.RegionAction) != 1 {
		t.Fatalf("sent %d keys in %d region actions, want 2 in 1", m.sent, len(req.RegionAction))
	}
	ra := req.RegionAction[0]
	if !bytes.Equal(ra.GetRegion().GetValue(), m.reg.Name()) {
		t.Errorf("region %q", ra.GetRegion().GetValue())
	}
	for i, a := range ra.Action {
		if a.GetIndex() != uint32(i+1) || !bytes.Equal(a.GetGet().GetRow(), keys[i]) {
			t.Errorf("action %d: index %d row %q", i, a.GetIndex(), a.GetGet().GetRow())
		}
	}
	if _, err := proto.Marshal(req); err != nil {
		t.Fatal(err)
	}
	// A send to the last region holds every key.
	m.SetRegion(testRegion(2, "a", ""))
	if m.ToProto(); m.sent != 4 {
		t.Fatalf("sent %d, want 4", m.sent)
	}
}

// TestMultiGetResponse decodes a MultiResponse with cell blocks: rows with
// cells, a missing row, a failed action, a cell of another family.
func TestMultiGetResponse(t *testing.T) {
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e")}
	m := newMultiGet(context.Background(), []byte("ns:t"), keys)
	m.SetRegion(testRegion(1, "", "e"))
	m.ToProto()
	c1 := kv.Cell{Qualifier: []byte{}, Timestamp: 5, Value: []byte{0}}
	c2 := kv.Cell{Qualifier: []byte("v"), Timestamp: 6, Value: []byte("val")}
	var blocks []byte
	blocks = appendKeyValue(blocks, keys[0], familyBytes, &c1)
	blocks = appendKeyValue(blocks, keys[0], familyBytes, &c2)
	blocks = appendKeyValue(blocks, keys[3], []byte("other"), &c2)
	blocks = appendKeyValue(blocks, keys[3], familyBytes, &c1)
	result := func(i uint32, n int32) *pb.ResultOrException {
		return &pb.ResultOrException{Index: proto.Uint32(i), Result: &pb.Result{AssociatedCellCount: proto.Int32(n)}}
	}
	mr := &pb.MultiResponse{RegionActionResult: []*pb.RegionActionResult{{ResultOrException: []*pb.ResultOrException{
		result(1, 2),
		result(2, 0),
		{Index: proto.Uint32(3), Exception: &pb.NameBytesPair{Name: proto.String("java.io.IOException")}},
		result(4, 2),
	}}}}
	n, err := m.DeserializeCellBlocks(mr, blocks)
	if err != nil || int(n) != len(blocks) {
		t.Fatalf("read %d of %d bytes: %v", n, len(blocks), err)
	}
	rows := make([]kv.Row, 5)
	left, err := m.results(mr, []int{4, 3, 2, 1, 0}, rows)
	if err != nil {
		t.Fatal(err)
	}
	// Key "c" failed, "e" was outside the region; positions are reversed.
	if !reflect.DeepEqual(left, []int{2, 0}) {
		t.Errorf("left %v, want [2 0]", left)
	}
	if !reflect.DeepEqual(rows[4].Cells, []kv.Cell{c1, c2}) || rows[3].Cells != nil ||
		!reflect.DeepEqual(rows[1].Cells, []kv.Cell{c1}) {
		t.Errorf("rows %+v", rows)
	}
	// An exception for the whole region leaves every key.
	mr = &pb.MultiResponse{RegionActionResult: []*pb.RegionActionResult{{Exception: &pb.NameBytesPair{Name: proto.String("x")}}}}
	if left, err = m.results(mr, []int{0, 1, 2, 3, 4}, make([]kv.Row, 5)); err != nil || len(left) != 5 {
		t.Errorf("left %v, %v", left, err)
	}
}

func TestRegionCache(t *testing.T) {
	var c regionCache
	a, b, z := testRegion(1, "", "m"), testRegion(2, "m", "t"), testRegion(3, "t", "")
	for _, r := range []hrpc.RegionInfo{z, a, b, a} {
		c.learn("t", r)
	}
	rs := c.regions("t")
	if len(rs) != 3 || rs[0] != a || rs[1] != b || rs[2] != z {
		t.Fatalf("regions %v", rs)
	}
	for key, want := range map[string]int{"": 0, "a": 0, "m": 1, "s": 1, "t": 2, "zz": 2} {
		if got := locate(rs, []byte(key)); got != want {
			t.Errorf("locate(%q) = %d, want %d", key, got, want)
		}
	}
	// b splits: its daughters replace it, and a dead region is not used.
	b.MarkDead()
	if locate(rs, []byte("n")) != -1 {
		t.Error("dead region located")
	}
	b1, b2 := testRegion(4, "m", "p"), testRegion(5, "p", "t")
	c.learn("t", b1)
	c.learn("t", b2)
	if rs = c.regions("t"); len(rs) != 4 || rs[1] != b1 || rs[2] != b2 {
		t.Fatalf("after split: %v", rs)
	}
	// A merge replaces both.
	m := testRegion(6, "", "p")
	c.learn("t", m)
	if rs = c.regions("t"); len(rs) != 3 || rs[0] != m || rs[1] != b2 {
		t.Fatalf("after merge: %v", rs)
	}
	c.forget("t")
	if rs = c.regions("t"); rs != nil {
		t.Fatalf("after forget: %v", rs)
	}
}

func TestRowReaderGroup(t *testing.T) {
	s := &Store{}
	s.regions.learn("t", testRegion(1, "", "c"))
	s.regions.learn("t", testRegion(2, "e", ""))
	keys := [][]byte{[]byte("f"), []byte("a"), []byte("d"), {}, []byte("b"), []byte("z"), []byte("c")}
	r := &rowReader{s: s, fq: "t", keys: keys}
	groups, rest := r.group()
	// "a","b" in the first region; "c","d" in none; "f","z" in the last.
	want := [][]int{{1, 4}, {0, 5}}
	if !reflect.DeepEqual(groups, want) || !reflect.DeepEqual(rest, []int{6, 2}) {
		t.Fatalf("groups %v rest %v, want %v [6 2]", groups, rest, want)
	}
	// Nothing known: every readable key is read singly.
	r.fq = "other"
	if groups, rest = r.group(); groups != nil || len(rest) != 6 {
		t.Fatalf("unknown table: groups %v rest %v", groups, rest)
	}
}

// TestMultiGetRegions reads keys spread over four of five regions, with missing
// rows, duplicates and an unreadable key: the first read learns the
// regions with single Gets, the next ones use one multi-get per region, and
// a poisoned cache (one made-up region over the whole table) still reads
// every row right (the keys outside the region gohbase routes to fall back).
func TestMultiGetRegions(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := t.Context()
	ts, drop := testTable(t, s, "mget", []byte{0x40}, []byte{0x80}, []byte{0x80, 0x00}, []byte{0xc0})
	defer drop()
	var keys [][]byte
	var muts []kv.Mutation
	for i := 0; i < 256; i += 3 {
		k := []byte{byte(i), 0x00, byte(i)}
		keys = append(keys, k, []byte{byte(i), 0x01}) // the second is missing
		muts = append(muts, kv.Mutation{Table: ts, Row: k, Cells: []kv.Cell{
			liveCell("a", 1, fmt.Sprint(i)), liveCell("b", 2, "v")}})
	}
	keys = append(keys, keys[0], nil, bytes.Repeat([]byte{1}, maxRowLength+1))
	if err := s.Apply(ctx, muts); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		rows, err := s.Get(ctx, ts, keys)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for i, r := range rows {
			want := 0
			if len(keys[i]) == 3 {
				want = 2
			}
			if !bytes.Equal(r.Key, keys[i]) || len(r.Cells) != want {
				t.Fatalf("%s: row %d key %x: got key %x, %d cells, want %d", when, i, keys[i], r.Key, len(r.Cells), want)
			}
			if want > 0 && (string(r.Cells[0].Qualifier) != "a" || r.Cells[1].Timestamp != 2 ||
				!bytes.Equal(r.Cells[0].Value, liveCell("a", 1, fmt.Sprint(keys[i][0])).Value)) {
				t.Fatalf("%s: row %x: cells %+v", when, keys[i], r.Cells)
			}
		}
	}
	fq := tableName(ts)
	check("first read")
	// No key falls in [80, 80 00), the fifth region.
	if n := len(s.regions.regions(fq)); n != 4 {
		t.Fatalf("learned %d regions, want 4", n)
	}
	check("multi-get")
	s.regions.learn(fq, region.NewInfo(1, []byte("kvtest"), []byte(fq), []byte(fq+",,1.made-up."), nil, nil))
	if n := len(s.regions.regions(fq)); n != 1 {
		t.Fatalf("poisoned cache holds %d regions", n)
	}
	check("poisoned cache")
	check("relearned")
	if n := len(s.regions.regions(fq)); n != 4 {
		t.Fatalf("relearned %d regions, want 4", n)
	}
}
