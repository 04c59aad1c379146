package cqlserver

import (
	"encoding/binary"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// rowsBody is a Rows result body after its kind, without metadata.
func rowsBody(more bool, rows [][][]byte, nulls map[[2]int]bool) []byte {
	flags := wire.RowsNoMetadata
	if more {
		flags |= wire.RowsHasMorePages
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(flags))
	b = binary.BigEndian.AppendUint32(b, uint32(len(rows[0])))
	if more {
		b = binary.BigEndian.AppendUint32(b, 3)
		b = append(b, "pag"...)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(rows)))
	for i, row := range rows {
		for j, cell := range row {
			switch {
			case nulls[[2]int{i, j}]:
				b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			default:
				b = binary.BigEndian.AppendUint32(b, uint32(len(cell)))
				b = append(b, cell...)
			}
		}
	}
	return b
}

// TestRowsDigestMatchesDecode: the relay's allocation-free row summary
// gives the count, digest and paging flag that decoding the rows and
// bindings.RowsDigest give (capture compares digests across backends).
func TestRowsDigestMatchesDecode(t *testing.T) {
	rows := [][][]byte{
		{[]byte("k1"), []byte("value one"), {}},
		{[]byte("k2"), nil, []byte{0, 1, 2, 255}},
		{[]byte("k3"), []byte("x"), []byte("y")},
	}
	nulls := map[[2]int]bool{{1, 1}: true}
	for _, more := range []bool{false, true} {
		body := rowsBody(more, rows, nulls)
		dr := wire.NewReader(body)
		decoded, dmore, err := wire.DecodeRows(dr)
		if err != nil {
			t.Fatal(err)
		}
		n, digest, gmore, err := wire.RowsDigest(wire.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if want := bindings.RowsDigest(decoded); n != len(decoded) || digest != want || gmore != dmore {
			t.Fatalf("more=%v: got %d rows, digest %x, more %v; decoded %d rows, digest %x, more %v",
				more, n, digest, gmore, len(decoded), want, dmore)
		}
		if digest == bindings.RowsDigest(decoded[:2]) {
			t.Fatal("the digest ignores a row")
		}
	}
	// What the relay reports per answer with a Tap that wants rows
	// (capture on): the same figures, and no allocation.
	body := binary.BigEndian.AppendUint32(nil, uint32(wire.ResultRows))
	body = append(body, rowsBody(false, rows, nulls)...)
	resp := bindings.RelayAnswer{Op: wire.OpResult, Body: body}
	var out proxy.Relayed
	if a := testing.AllocsPerRun(100, func() { out = summarize(resp, true) }); a != 0 {
		t.Errorf("summarize allocates %.0f times per answer", a)
	}
	if out.Rows != len(rows) || out.Digest != bindings.RowsDigest(rows) {
		t.Errorf("summarize: %d rows, digest %x; want %d, %x", out.Rows, out.Digest, len(rows), bindings.RowsDigest(rows))
	}
	if _, _, _, err := wire.RowsDigest(wire.NewReader(rowsBody(false, rows, nulls)[:30])); err == nil {
		t.Fatal("a truncated body summarised without error")
	}
}
