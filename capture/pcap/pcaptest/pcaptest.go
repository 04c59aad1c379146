package pcaptest

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/dohyo/dohyo/capture/pcap"
)

// Packet is one packet to write: its time, link type and bytes.
type Packet struct {
	Time time.Time
	Link pcap.LinkType
	Data []byte
	Orig int // length on the wire; 0: len(Data)
}

// TCP builds a TCP segment over IPv4 or IPv6 (by the addresses), framed
// for link.
func TCP(link pcap.LinkType, src, dst netip.AddrPort, seq, ack uint32, flags uint8, payload []byte) []byte {
	t := make([]byte, 20, 20+len(payload))
	binary.BigEndian.PutUint16(t, src.Port())
	binary.BigEndian.PutUint16(t[2:], dst.Port())
	binary.BigEndian.PutUint32(t[4:], seq)
	binary.BigEndian.PutUint32(t[8:], ack)
	t[12] = 5 << 4
	t[13] = flags
	binary.BigEndian.PutUint16(t[14:], 65535)
	t = append(t, payload...)
	var ip []byte
	v6 := src.Addr().Is6()
	if !v6 {
		ip = make([]byte, 20, 20+len(t))
		ip[0] = 0x45
		binary.BigEndian.PutUint16(ip[2:], uint16(20+len(t)))
		ip[6] = 0x40 // DF
		ip[8] = 64
		ip[9] = 6
		s, d := src.Addr().As4(), dst.Addr().As4()
		copy(ip[12:], s[:])
		copy(ip[16:], d[:])
	} else {
		ip = make([]byte, 40, 40+len(t))
		ip[0] = 0x60
		binary.BigEndian.PutUint16(ip[4:], uint16(len(t)))
		ip[6] = 6
		ip[7] = 64
		s, d := src.Addr().As16(), dst.Addr().As16()
		copy(ip[8:], s[:])
		copy(ip[24:], d[:])
	}
	ip = append(ip, t...)
	proto := uint16(0x0800)
	if v6 {
		proto = 0x86DD
	}
	switch link {
	case pcap.LinkEthernet:
		h := make([]byte, 14)
		binary.BigEndian.PutUint16(h[12:], proto)
		return append(h, ip...)
	case pcap.LinkSLL:
		h := make([]byte, 16)
		binary.BigEndian.PutUint16(h[2:], 772)
		binary.BigEndian.PutUint16(h[14:], proto)
		return append(h, ip...)
	case pcap.LinkSLL2:
		h := make([]byte, 20)
		binary.BigEndian.PutUint16(h, proto)
		return append(h, ip...)
	case pcap.LinkNull:
		h := make([]byte, 4)
		fam := uint32(2)
		if v6 {
			fam = 30
		}
		binary.LittleEndian.PutUint32(h, fam)
		return append(h, ip...)
	}
	return ip
}

// Pcap returns a classic pcap file of the packets (all of one link type,
// the first's).
func Pcap(order binary.ByteOrder, nano bool, pkts []Packet) []byte {
	var b bytes.Buffer
	magic := uint32(0xa1b2c3d4)
	if nano {
		magic = 0xa1b23c4d
	}
	link := pcap.LinkEthernet
	if len(pkts) > 0 {
		link = pkts[0].Link
	}
	h := make([]byte, 24)
	order.PutUint32(h, magic)
	order.PutUint16(h[4:], 2)
	order.PutUint16(h[6:], 4)
	order.PutUint32(h[16:], 262144)
	order.PutUint32(h[20:], uint32(link))
	b.Write(h)
	for _, p := range pkts {
		r := make([]byte, 16)
		order.PutUint32(r, uint32(p.Time.Unix()))
		frac := uint32(p.Time.Nanosecond())
		if !nano {
			frac /= 1000
		}
		order.PutUint32(r[4:], frac)
		order.PutUint32(r[8:], uint32(len(p.Data)))
		order.PutUint32(r[12:], uint32(max(p.Orig, len(p.Data))))
		b.Write(r)
		b.Write(p.Data)
	}
	return b.Bytes()
}

// PcapNG returns a pcapng file: one interface per distinct link type
// (in order of appearance) with nanosecond timestamps on odd interfaces
// and microseconds on even ones, enhanced packet blocks, and a name
// resolution block to skip.
func PcapNG(order binary.ByteOrder, pkts []Packet) []byte {
	var b bytes.Buffer
	block := func(typ uint32, body []byte) {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		n := uint32(12 + len(body))
		h := make([]byte, 8)
		order.PutUint32(h, typ)
		order.PutUint32(h[4:], n)
		b.Write(h)
		b.Write(body)
		t := make([]byte, 4)
		order.PutUint32(t, n)
		b.Write(t)
	}
	shb := make([]byte, 16)
	order.PutUint32(shb, 0x1A2B3C4D)
	order.PutUint16(shb[4:], 1)
	binary.LittleEndian.PutUint64(shb[8:], ^uint64(0))
	block(0x0A0D0D0A, shb)
	ifs := map[pcap.LinkType]int{}
	for _, p := range pkts {
		id, ok := ifs[p.Link]
		if !ok {
			id = len(ifs)
			ifs[p.Link] = id
			idb := make([]byte, 8)
			order.PutUint16(idb, uint16(p.Link))
			order.PutUint32(idb[4:], 262144)
			if id%2 == 1 { // if_tsresol = 9 (ns), then end of options
				opt := make([]byte, 8)
				order.PutUint16(opt, 9)
				order.PutUint16(opt[2:], 1)
				opt[4] = 9
				idb = append(idb, opt...)
				idb = append(idb, 0, 0, 0, 0)
			}
			block(1, idb)
			block(4, []byte{0, 0, 0, 0}) // an empty name resolution block
		}
		ts := uint64(p.Time.UnixMicro())
		if id%2 == 1 {
			ts = uint64(p.Time.UnixNano())
		}
		epb := make([]byte, 20)
		order.PutUint32(epb, uint32(id))
		order.PutUint32(epb[4:], uint32(ts>>32))
		order.PutUint32(epb[8:], uint32(ts))
		order.PutUint32(epb[12:], uint32(len(p.Data)))
		order.PutUint32(epb[16:], uint32(max(p.Orig, len(p.Data))))
		block(6, append(epb, p.Data...))
	}
	return b.Bytes()
}
