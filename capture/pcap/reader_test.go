package pcap_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/capture/pcap/pcaptest"
)

var (
	client = netip.MustParseAddrPort("127.0.0.1:50000")
	server = netip.MustParseAddrPort("127.0.0.1:9042")
	c6     = netip.MustParseAddrPort("[::1]:50001")
	s6     = netip.MustParseAddrPort("[::1]:9042")
)

func packets(link pcap.LinkType) []pcaptest.Packet {
	t0 := time.Unix(1_700_000_000, 123_456_789)
	var out []pcaptest.Packet
	for i := range 5 {
		src, dst := client, server
		if i%2 == 1 {
			src, dst = c6, s6
		}
		out = append(out, pcaptest.Packet{Time: t0.Add(time.Duration(i) * time.Millisecond), Link: link,
			Data: pcaptest.TCP(link, src, dst, uint32(1000+i), 7, pcap.FlagACK, []byte{byte(i), 1, 2, 3})})
	}
	return out
}

func readAll(t *testing.T, b []byte) ([]pcap.Packet, error) {
	t.Helper()
	r, err := pcap.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []pcap.Packet
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		p.Data = append([]byte(nil), p.Data...)
		out = append(out, p)
	}
}

func TestReadFormats(t *testing.T) {
	links := []pcap.LinkType{pcap.LinkEthernet, pcap.LinkSLL, pcap.LinkSLL2, pcap.LinkRaw, pcap.LinkNull}
	for _, link := range links {
		want := packets(link)
		files := map[string][]byte{
			"pcap-le-us": pcaptest.Pcap(binary.LittleEndian, false, want),
			"pcap-be-us": pcaptest.Pcap(binary.BigEndian, false, want),
			"pcap-le-ns": pcaptest.Pcap(binary.LittleEndian, true, want),
			"pcap-be-ns": pcaptest.Pcap(binary.BigEndian, true, want),
			"ng-le":      pcaptest.PcapNG(binary.LittleEndian, want),
			"ng-be":      pcaptest.PcapNG(binary.BigEndian, want),
		}
		for name, file := range files {
			got, err := readAll(t, file)
			if err != nil {
				t.Fatalf("link %d %s: %v", link, name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("link %d %s: %d packets, want %d", link, name, len(got), len(want))
			}
			for i, p := range got {
				wantT := want[i].Time
				if name == "pcap-le-us" || name == "pcap-be-us" || name == "ng-le" || name == "ng-be" {
					wantT = wantT.Truncate(time.Microsecond) // microsecond files; pcapng interface 0
				}
				if !p.Time.Equal(wantT) || p.Link != link || !bytes.Equal(p.Data, want[i].Data) {
					t.Fatalf("link %d %s packet %d: time %v link %d, want %v %d (data equal %v)",
						link, name, i, p.Time, p.Link, wantT, link, bytes.Equal(p.Data, want[i].Data))
				}
				seg, err := pcap.DecodeTCP(p.Link, p.Data, p.OrigLen)
				if err != nil {
					t.Fatalf("link %d %s packet %d: %v", link, name, i, err)
				}
				if seg.Seq != uint32(1000+i) || seg.Payload[0] != byte(i) || seg.Dst.Port() != 9042 {
					t.Fatalf("link %d %s packet %d: segment %+v", link, name, i, seg)
				}
			}
		}
	}
}

// TestPcapNGInterfaces: packets of two interfaces with different link
// types and timestamp resolutions (microseconds, nanoseconds).
func TestPcapNGInterfaces(t *testing.T) {
	a, b := packets(pcap.LinkEthernet), packets(pcap.LinkSLL2)
	var mixed []pcaptest.Packet
	for i := range a {
		mixed = append(mixed, a[i], b[i])
	}
	got, err := readAll(t, pcaptest.PcapNG(binary.LittleEndian, mixed))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range got {
		want := mixed[i]
		if p.Link != want.Link || p.Interface != i%2 {
			t.Fatalf("packet %d: link %d interface %d, want %d %d", i, p.Link, p.Interface, want.Link, i%2)
		}
		if i%2 == 1 && !p.Time.Equal(want.Time) {
			t.Fatalf("packet %d: nanosecond interface time %v, want %v", i, p.Time, want.Time)
		}
	}
}

func TestTruncated(t *testing.T) {
	for name, file := range map[string][]byte{
		"pcap": pcaptest.Pcap(binary.LittleEndian, false, packets(pcap.LinkEthernet)),
		"ng":   pcaptest.PcapNG(binary.LittleEndian, packets(pcap.LinkEthernet)),
	} {
		full, err := readAll(t, file)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 1; cut < len(file); cut++ {
			got, err := readAll(t, file[:cut])
			if err == nil {
				if len(got) == len(full) {
					t.Fatalf("%s cut at %d of %d: all packets and no error", name, cut, len(file))
				}
				continue // a cut exactly between packets is a clean (shorter) file
			}
			if !errors.Is(err, pcap.ErrTruncated) {
				t.Fatalf("%s cut at %d: %v, want ErrTruncated", name, cut, err)
			}
		}
	}
}

func TestGarbage(t *testing.T) {
	if _, err := pcap.NewReader(bytes.NewReader([]byte("hello, this is not a capture file"))); err == nil {
		t.Fatal("garbage accepted")
	}
	if _, err := pcap.NewReader(bytes.NewReader(nil)); err == nil {
		t.Fatal("empty file accepted")
	}
	// A huge captured length is refused before anything is allocated.
	file := pcaptest.Pcap(binary.LittleEndian, false, packets(pcap.LinkEthernet))
	binary.LittleEndian.PutUint32(file[24+8:], 1<<31)
	_, err := readAll(t, file)
	var fe *pcap.FormatError
	if !errors.As(err, &fe) || fe.Offset != 24 {
		t.Fatalf("huge packet: %v, want a FormatError at offset 24", err)
	}
}

// TestFlippedBytes: every single-byte corruption reads without a panic.
func TestFlippedBytes(t *testing.T) {
	for _, file := range [][]byte{
		pcaptest.Pcap(binary.BigEndian, true, packets(pcap.LinkSLL)),
		pcaptest.PcapNG(binary.LittleEndian, packets(pcap.LinkEthernet)),
	} {
		for i := range file {
			bad := append([]byte(nil), file...)
			bad[i] ^= 0xFF
			pkts, _ := readAll(t, bad)
			for _, p := range pkts {
				_, _ = pcap.DecodeTCP(p.Link, p.Data, p.OrigLen)
			}
		}
	}
}

func TestDecodeTCPReasons(t *testing.T) {
	pkt := pcaptest.TCP(pcap.LinkEthernet, client, server, 1, 2, pcap.FlagACK, []byte("x"))
	cases := map[string]struct {
		link LinkType
		data []byte
		want error
	}{
		"short":    {pcap.LinkEthernet, pkt[:20], pcap.ErrShort},
		"link":     {LinkType(999), pkt, pcap.ErrUnknownLink},
		"arp":      {pcap.LinkEthernet, append(append([]byte(nil), pkt[:12]...), 0x08, 0x06, 0, 0), pcap.ErrNotIP},
		"udp":      {pcap.LinkEthernet, withByte(pkt, 14+9, 17), pcap.ErrNotTCP},
		"fragment": {pcap.LinkEthernet, withByte(pkt, 14+6, 0x20), pcap.ErrFragment},
	}
	for name, c := range cases {
		if _, err := pcap.DecodeTCP(c.link, c.data, 0); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A packet cut by the snapshot length reports the missing bytes.
	seg, err := pcap.DecodeTCP(pcap.LinkEthernet, pkt[:len(pkt)-1], len(pkt))
	if err != nil || seg.Missing != 1 || len(seg.Payload) != 0 {
		t.Fatalf("cut packet: %+v %v, want 1 missing byte", seg, err)
	}
}

type LinkType = pcap.LinkType

func withByte(b []byte, i int, v byte) []byte {
	c := append([]byte(nil), b...)
	c[i] = v
	return c
}

func FuzzReader(f *testing.F) {
	f.Add(pcaptest.Pcap(binary.LittleEndian, false, packets(pcap.LinkEthernet)[:2]))
	f.Add(pcaptest.PcapNG(binary.BigEndian, packets(pcap.LinkSLL2)[:2]))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := pcap.NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		for range 1000 {
			p, err := r.Next()
			if err != nil {
				return
			}
			if len(p.Data) > pcap.MaxPacket {
				t.Fatalf("packet of %d bytes", len(p.Data))
			}
			_, _ = pcap.DecodeTCP(p.Link, p.Data, p.OrigLen)
		}
	})
}

// TestPcapNGSimpleAndObsoleteBlocks: simple packet blocks (interface 0,
// no timestamp: the previous packet's) and obsolete packet blocks.
func TestPcapNGSimpleAndObsoleteBlocks(t *testing.T) {
	pkts := packets(pcap.LinkEthernet)[:2]
	file := pcaptest.PcapNG(binary.LittleEndian, pkts[:1])
	block := func(typ uint32, body []byte) {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		n := uint32(12 + len(body))
		file = binary.LittleEndian.AppendUint32(file, typ)
		file = binary.LittleEndian.AppendUint32(file, n)
		file = append(file, body...)
		file = binary.LittleEndian.AppendUint32(file, n)
	}
	spb := binary.LittleEndian.AppendUint32(nil, uint32(len(pkts[1].Data)))
	block(3, append(spb, pkts[1].Data...))
	ts := uint64(pkts[1].Time.UnixMicro())
	pb := binary.LittleEndian.AppendUint16(nil, 0) // interface
	pb = binary.LittleEndian.AppendUint16(pb, 0)   // drops
	pb = binary.LittleEndian.AppendUint32(pb, uint32(ts>>32))
	pb = binary.LittleEndian.AppendUint32(pb, uint32(ts))
	pb = binary.LittleEndian.AppendUint32(pb, uint32(len(pkts[1].Data)))
	pb = binary.LittleEndian.AppendUint32(pb, uint32(len(pkts[1].Data)))
	block(2, append(pb, pkts[1].Data...))
	got, err := readAll(t, file)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d packets, %v", len(got), err)
	}
	if !got[1].Time.Equal(got[0].Time) || !bytes.Equal(got[1].Data, pkts[1].Data) {
		t.Fatalf("simple packet: time %v (want the previous %v), data equal %v", got[1].Time, got[0].Time, bytes.Equal(got[1].Data, pkts[1].Data))
	}
	if !got[2].Time.Equal(pkts[1].Time.Truncate(time.Microsecond)) || !bytes.Equal(got[2].Data, pkts[1].Data) {
		t.Fatalf("obsolete packet block: time %v", got[2].Time)
	}
}

func TestPortFilterShape(t *testing.T) {
	prog := pcap.PortFilter([]uint16{9042, 19042}, 1000)
	if len(prog) == 0 || prog[len(prog)-1].K != 1000 || prog[len(prog)-2].K != 0 {
		t.Fatalf("program ends %+v, want drop then accept", prog[len(prog)-2:])
	}
	for i, in := range prog {
		if in.Code&0x07 != 0x05 { // not a jump
			continue
		}
		if int(in.Jt)+i+1 >= len(prog) || int(in.Jf)+i+1 >= len(prog) {
			t.Fatalf("instruction %d jumps out of the program: %+v", i, in)
		}
	}
}
