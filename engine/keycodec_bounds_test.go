package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func inRanges(rs []KeyRange, key []byte) bool {
	for _, r := range rs {
		if (r.Start == nil || bytes.Compare(key, r.Start) >= 0) && (r.Stop == nil || bytes.Compare(key, r.Stop) < 0) {
			return true
		}
	}
	return false
}

// checkRanges: ascending, non-empty, disjoint, not touching (merged).
func checkRanges(t *testing.T, rs []KeyRange) {
	t.Helper()
	for i, r := range rs {
		if bytes.Compare(r.Start, r.Stop) >= 0 {
			t.Fatalf("range %d empty or inverted: %x..%x", i, r.Start, r.Stop)
		}
		if i > 0 && bytes.Compare(rs[i-1].Stop, r.Start) >= 0 {
			t.Fatalf("ranges %d and %d overlap or touch: %x >= %x", i-1, i, rs[i-1].Stop, r.Start)
		}
	}
}

// tupleCompare compares values column by column in CQL (natural) order.
func tupleCompare(types []*cql.Type, a, b [][]byte) int {
	for i := range b {
		if c := refCompare(types[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// sliceDomains are small value sets per type, with values Cassandra calls
// equal (1.0 and 1.00), an empty value and embedded zero bytes.
func sliceDomains() ([]*cql.Type, [][][]byte) {
	dec := func(scale int32, unscaled byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(scale)), unscaled)
	}
	return []*cql.Type{cql.Scalar(cql.KindInt), cql.Scalar(cql.KindDecimal), cql.Scalar(cql.KindText)},
		[][][]byte{
			{{0, 0, 0, 0}, {0, 0, 0, 1}, {0xFF, 0xFF, 0xFF, 0xFF}, {}},
			{dec(1, 10), dec(2, 100), dec(0, 2), dec(0, 0xFF)}, // 1.0, 1.00, 2, -1
			{[]byte("a"), []byte("a\x00"), []byte("b"), {}},
		}
}

// TestKeyCodecSlice compares Slice against a model of CQL clustering
// restrictions on every row of small tables with mixed ASC/DESC columns.
func TestKeyCodecSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	domTypes, domains := sliceDomains()
	for iter := 0; iter < 400; iter++ {
		m := 1 + r.IntN(3)
		var ck []*cql.Type
		var dom [][][]byte
		var desc []bool
		for i := 0; i < m; i++ {
			j := r.IntN(len(domTypes))
			ck = append(ck, domTypes[j])
			dom = append(dom, domains[j])
			desc = append(desc, r.IntN(2) == 0)
		}
		c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, ck, desc, []int{0, 3}[iter%2])
		if err != nil {
			t.Fatal(err)
		}
		// Every row of the domain, in partitions 1 and 2.
		rows := [][][]byte{{}}
		for i := 0; i < m; i++ {
			var next [][][]byte
			for _, p := range rows {
				for _, v := range dom[i] {
					next = append(next, append(slices.Clone(p), v))
				}
			}
			rows = next
		}
		pk := [][]byte{{0, 0, 0, 1}}
		other := [][]byte{{0, 0, 0, 2}}

		for q := 0; q < 10; q++ {
			k := r.IntN(m + 1)
			var prefix [][]byte
			for i := 0; i < k; i++ {
				prefix = append(prefix, dom[i][r.IntN(len(dom[i]))])
			}
			mkBound := func() *Bound {
				if k == m || r.IntN(3) == 0 {
					return nil
				}
				n := 1 + r.IntN(m-k)
				b := &Bound{Inclusive: r.IntN(2) == 0}
				for i := 0; i < n; i++ {
					b.Values = append(b.Values, dom[k+i][r.IntN(len(dom[k+i]))])
				}
				return b
			}
			lower, upper := mkBound(), mkBound()
			rs, err := c.Slice(pk, prefix, lower, upper)
			if err != nil {
				t.Fatalf("Slice: %v", err)
			}
			checkRanges(t, rs)
			for _, row := range rows {
				want := true
				for i := 0; i < k; i++ {
					want = want && refCompare(ck[i], row[i], prefix[i]) == 0
				}
				if lower != nil {
					cmp := tupleCompare(ck[k:], row[k:], lower.Values)
					want = want && (cmp > 0 || cmp == 0 && lower.Inclusive)
				}
				if upper != nil {
					cmp := tupleCompare(ck[k:], row[k:], upper.Values)
					want = want && (cmp < 0 || cmp == 0 && upper.Inclusive)
				}
				key, err := c.RowKey(pk, row)
				if err != nil {
					t.Fatal(err)
				}
				if got := inRanges(rs, key); got != want {
					t.Fatalf("ck=%v desc=%v prefix=%x lower=%+v upper=%+v: row %x selected=%v, want %v",
						ck, desc, prefix, lower, upper, row, got, want)
				}
				okey, err := c.RowKey(other, row)
				if err != nil {
					t.Fatal(err)
				}
				if inRanges(rs, okey) {
					t.Fatalf("row %x of another partition selected", row)
				}
			}
			header, err := c.PartitionKey(pk)
			if err != nil {
				t.Fatal(err)
			}
			if inRanges(rs, header) {
				t.Fatalf("header row selected by %v", rs)
			}
		}
	}
}

func TestKeyCodecClusteringBound(t *testing.T) {
	for _, desc := range []bool{false, true} {
		c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindText)}, []*cql.Type{cql.Scalar(cql.KindInt), cql.Scalar(cql.KindInt)}, []bool{desc, false}, 0)
		if err != nil {
			t.Fatal(err)
		}
		pk := [][]byte{[]byte("p")}
		i32 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
		// Rows (a, b) for a, b in 0..3, listed in clustering (key) order.
		var keys [][]byte
		var rows [][2]int32
		for a := int32(0); a < 4; a++ {
			for b := int32(0); b < 4; b++ {
				k, err := c.RowKey(pk, [][]byte{i32(a), i32(b)})
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k)
				rows = append(rows, [2]int32{a, b})
			}
		}
		// In clustering order, column a runs 0..3 (ASC) or 3..0 (DESC).
		pos := func(a int32) int32 {
			if desc {
				return 3 - a
			}
			return a
		}
		for _, incl := range []bool{false, true} {
			start, err := c.ClusteringBound(pk, [][]byte{i32(2)}, incl, Start)
			if err != nil {
				t.Fatal(err)
			}
			stop, err := c.ClusteringBound(pk, [][]byte{i32(2)}, incl, End)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				p := pos(rows[i][0])
				afterStart := bytes.Compare(k, start) >= 0
				beforeStop := bytes.Compare(k, stop) < 0
				wantAfter := p > pos(2) || incl && p == pos(2)
				wantBefore := p < pos(2) || incl && p == pos(2)
				if afterStart != wantAfter || beforeStop != wantBefore {
					t.Errorf("desc=%v incl=%v row %v: after start %v (want %v), before stop %v (want %v)",
						desc, incl, rows[i], afterStart, wantAfter, beforeStop, wantBefore)
				}
			}
		}
		first, _ := c.ClusteringBound(pk, nil, true, Start)
		last, _ := c.ClusteringBound(pk, nil, true, End)
		header, _ := c.PartitionKey(pk)
		if bytes.Compare(header, first) >= 0 {
			t.Errorf("empty-prefix start %x does not exclude header %x", first, header)
		}
		for _, k := range keys {
			if bytes.Compare(k, first) < 0 || bytes.Compare(k, last) >= 0 {
				t.Errorf("row %x outside empty-prefix bounds", k)
			}
		}
	}
}

func TestKeyCodecPartitionRange(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for iter := 0; iter < 200; iter++ {
		c, pk, ck, _ := randTable(r, []int{0, 5}[iter%2])
		p1, _ := genRow(r, pk, ck)
		rg, err := c.PartitionRange(p1)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			p2, cv := genRow(r, pk, ck)
			if i%2 == 0 {
				p2 = p1
			}
			key, err := c.RowKey(p2, cv)
			if err != nil {
				t.Fatal(err)
			}
			same := bytes.Equal(SerializePartitionKey(p1), SerializePartitionKey(p2))
			if got := inRanges([]KeyRange{rg}, key); got != same {
				t.Fatalf("row %x in partition range of %x: %v, want %v", key, p1, got, same)
			}
		}
		header, _ := c.PartitionKey(p1)
		if !bytes.Equal(header, rg.Start) {
			t.Fatalf("range start %x is not the header %x", rg.Start, header)
		}
	}
}

// TestKeyCodecSaltAndTokens: a salted key is the bucket byte plus the
// unsalted key, buckets and token ranges select what they should, and
// MergeCompare restores the unsalted order.
func TestKeyCodecSaltAndTokens(t *testing.T) {
	s := cql.Scalar
	const buckets = 4
	plain, _ := NewKeyCodec([]*cql.Type{s(cql.KindBigint)}, []*cql.Type{s(cql.KindInt)}, nil, 0)
	salted, _ := NewKeyCodec([]*cql.Type{s(cql.KindBigint)}, []*cql.Type{s(cql.KindInt)}, nil, buckets)
	r := rand.New(rand.NewPCG(7, 7))
	var keys, plainKeys [][]byte
	for i := 0; i < 300; i++ {
		pk := [][]byte{binary.BigEndian.AppendUint64(nil, r.Uint64())}
		ck := [][]byte{binary.BigEndian.AppendUint32(nil, r.Uint32())}
		k, err := salted.RowKey(pk, ck)
		if err != nil {
			t.Fatal(err)
		}
		pkey, _ := plain.RowKey(pk, ck)
		if !bytes.Equal(k[1:], pkey) {
			t.Fatalf("salted key %x is not bucket + %x", k, pkey)
		}
		keys = append(keys, k)
		plainKeys = append(plainKeys, pkey)
	}
	lo, hi := int64(r.Uint64()), int64(r.Uint64())
	lo, hi = min(lo, hi), max(lo, hi)
	for _, k := range keys {
		b := salted.Bucket(k)
		tok, _ := salted.KeyToken(k)
		for bucket := 0; bucket < buckets; bucket++ {
			if got := inRanges([]KeyRange{salted.BucketRange(bucket)}, k); got != (b == bucket) {
				t.Errorf("key %x in bucket range %d: %v", k, bucket, got)
			}
			for _, tr := range [][2]int64{{lo, hi}, {math.MinInt64, lo}, {hi, math.MaxInt64}, {tok, tok}} {
				rg, ok := salted.TokenRange(bucket, tr[0], tr[1])
				if !ok {
					t.Fatalf("TokenRange(%d, %d) empty", tr[0], tr[1])
				}
				want := b == bucket && tok >= tr[0] && tok <= tr[1]
				if got := inRanges([]KeyRange{rg}, k); got != want {
					t.Errorf("key %x (bucket %d token %d) in TokenRange(%d, %d, %d): %v", k, b, tok, bucket, tr[0], tr[1], got)
				}
			}
		}
		if rg, ok := plain.TokenRange(0, tok, tok); !ok || !inRanges([]KeyRange{rg}, k[1:]) {
			t.Errorf("unsalted key not in its token's range")
		}
	}
	if _, ok := salted.TokenRange(0, 2, 1); ok {
		t.Error("TokenRange(2, 1) not empty")
	}
	slices.SortFunc(keys, salted.MergeCompare)
	slices.SortFunc(plainKeys, bytes.Compare)
	for i := range keys {
		if !bytes.Equal(keys[i][1:], plainKeys[i]) {
			t.Fatalf("merged order differs at %d", i)
		}
	}
}

func TestKeyCodecSplitKeys(t *testing.T) {
	for _, tc := range []struct{ salt, regions, want int }{
		{0, 1, 0}, {0, 8, 7}, {16, 4, 3}, {16, 16, 15}, {16, 64, 63}, {256, 300, 255},
	} {
		c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, nil, nil, tc.salt)
		if err != nil {
			t.Fatal(err)
		}
		ks := c.SplitKeys(tc.regions)
		if len(ks) != tc.want {
			t.Errorf("salt %d regions %d: %d split keys, want %d", tc.salt, tc.regions, len(ks), tc.want)
		}
		for i := 1; i < len(ks); i++ {
			if bytes.Compare(ks[i-1], ks[i]) >= 0 {
				t.Errorf("salt %d regions %d: split keys not ascending at %d", tc.salt, tc.regions, i)
			}
		}
	}
}

func TestKeySuccessor(t *testing.T) {
	c, _ := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindText)}, []*cql.Type{cql.Scalar(cql.KindText)}, nil, 0)
	a, _ := c.RowKey([][]byte{[]byte("p")}, [][]byte{[]byte("a")})
	b, _ := c.RowKey([][]byte{[]byte("p")}, [][]byte{[]byte("a\x00")})
	s := KeySuccessor(a)
	if bytes.Compare(s, a) <= 0 || bytes.Compare(s, b) > 0 {
		t.Errorf("successor %x not in (%x, %x]", s, a, b)
	}
	if &s[0] == &a[0] {
		t.Error("successor aliases its input")
	}
}
