package pcap

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// TCP flags.
const (
	FlagFIN = 0x01
	FlagSYN = 0x02
	FlagRST = 0x04
	FlagACK = 0x10
)

// Segment is the TCP part of a packet. Payload is a slice of the packet
// data.
type Segment struct {
	Src, Dst netip.AddrPort
	Seq, Ack uint32
	Flags    uint8
	Payload  []byte
	// Missing is how many payload bytes the IP header announces beyond
	// those captured (the snapshot length cut the packet): the stream
	// lost them.
	Missing int
}

// Reasons a packet is not a TCP segment (DecodeTCP's errors); callers
// count them by reason.
var (
	ErrUnknownLink = errors.New("unsupported link type")
	ErrNotIP       = errors.New("not IPv4 or IPv6")
	ErrNotTCP      = errors.New("not TCP")
	ErrFragment    = errors.New("IP fragment")
	ErrShort       = errors.New("packet shorter than its headers")
)

// Ethertypes.
const (
	etherIPv4 = 0x0800
	etherIPv6 = 0x86DD
	etherVLAN = 0x8100
	etherQinQ = 0x88A8
)

// DecodeTCP decodes the link, IP and TCP headers of a packet captured on
// a link of type link. origLen is the packet's length on the wire (to
// tell a packet cut by the snapshot length; 0: not cut).
func DecodeTCP(link LinkType, data []byte, origLen int) (Segment, error) {
	ip, err := linkPayload(link, data)
	if err != nil {
		return Segment{}, err
	}
	cut := max(0, origLen-len(data))
	if len(ip) == 0 {
		return Segment{}, ErrShort
	}
	switch ip[0] >> 4 {
	case 4:
		return ipv4(ip, cut)
	case 6:
		return ipv6(ip, cut)
	}
	return Segment{}, ErrNotIP
}

// linkPayload strips the link-layer header and returns the IP packet.
func linkPayload(link LinkType, b []byte) ([]byte, error) {
	switch link {
	case LinkEthernet:
		if len(b) < 14 {
			return nil, ErrShort
		}
		typ := binary.BigEndian.Uint16(b[12:])
		b = b[14:]
		for range 2 { // at most two VLAN tags (802.1ad)
			if typ != etherVLAN && typ != etherQinQ {
				break
			}
			if len(b) < 4 {
				return nil, ErrShort
			}
			typ = binary.BigEndian.Uint16(b[2:])
			b = b[4:]
		}
		return etherIP(typ, b)
	case LinkNull, LinkLoop:
		// The family is 2 for IPv4 and 10, 24, 28 or 30 for IPv6 by OS
		// and byte order: the IP version nibble tells as well.
		if len(b) < 4 {
			return nil, ErrShort
		}
		return b[4:], nil
	case LinkRaw, LinkIPv4, LinkIPv6, 12, 14: // 12, 14: raw IP on some BSDs
		return b, nil
	case LinkSLL:
		if len(b) < 16 {
			return nil, ErrShort
		}
		return etherIP(binary.BigEndian.Uint16(b[14:]), b[16:])
	case LinkSLL2:
		if len(b) < 20 {
			return nil, ErrShort
		}
		return etherIP(binary.BigEndian.Uint16(b), b[20:])
	}
	return nil, ErrUnknownLink
}

func etherIP(typ uint16, b []byte) ([]byte, error) {
	if typ != etherIPv4 && typ != etherIPv6 {
		return nil, ErrNotIP
	}
	return b, nil
}

func ipv4(b []byte, cut int) (Segment, error) {
	if len(b) < 20 {
		return Segment{}, ErrShort
	}
	ihl := int(b[0]&0x0F) * 4
	total := int(binary.BigEndian.Uint16(b[2:]))
	if ihl < 20 || total < ihl || len(b) < ihl {
		return Segment{}, ErrShort
	}
	if b[9] != 6 {
		return Segment{}, ErrNotTCP
	}
	if frag := binary.BigEndian.Uint16(b[6:]); frag&0x3FFF != 0 { // MF or an offset
		return Segment{}, ErrFragment
	}
	missing := 0
	if total <= len(b) {
		b = b[:total] // drop Ethernet padding
	} else {
		missing = total - len(b)
		if cut == 0 { // the header claims more than the packet carried
			return Segment{}, ErrShort
		}
	}
	src, _ := netip.AddrFromSlice(b[12:16])
	dst, _ := netip.AddrFromSlice(b[16:20])
	return tcp(src, dst, b[ihl:], missing)
}

// IPv6 extension headers that may precede TCP.
const (
	ip6HopByHop = 0
	ip6Routing  = 43
	ip6Fragment = 44
	ip6DestOpts = 60
	ip6TCP      = 6
)

func ipv6(b []byte, cut int) (Segment, error) {
	if len(b) < 40 {
		return Segment{}, ErrShort
	}
	plen := int(binary.BigEndian.Uint16(b[4:]))
	next := b[6]
	src, _ := netip.AddrFromSlice(b[8:24])
	dst, _ := netip.AddrFromSlice(b[24:40])
	body := b[40:]
	missing := 0
	if plen <= len(body) {
		body = body[:plen]
	} else {
		missing = plen - len(body)
		if cut == 0 {
			return Segment{}, ErrShort
		}
	}
	for range 8 {
		switch next {
		case ip6TCP:
			return tcp(src, dst, body, missing)
		case ip6Fragment:
			return Segment{}, ErrFragment
		case ip6HopByHop, ip6Routing, ip6DestOpts:
			if len(body) < 8 {
				return Segment{}, ErrShort
			}
			n := (int(body[1]) + 1) * 8
			if len(body) < n {
				return Segment{}, ErrShort
			}
			next, body = body[0], body[n:]
		default:
			return Segment{}, ErrNotTCP
		}
	}
	return Segment{}, ErrNotTCP
}

func tcp(src, dst netip.Addr, b []byte, missing int) (Segment, error) {
	if len(b) < 20 {
		return Segment{}, ErrShort
	}
	off := int(b[12]>>4) * 4
	if off < 20 || off > len(b) {
		return Segment{}, ErrShort
	}
	return Segment{
		Src:     netip.AddrPortFrom(src.Unmap(), binary.BigEndian.Uint16(b)),
		Dst:     netip.AddrPortFrom(dst.Unmap(), binary.BigEndian.Uint16(b[2:])),
		Seq:     binary.BigEndian.Uint32(b[4:]),
		Ack:     binary.BigEndian.Uint32(b[8:]),
		Flags:   b[13],
		Payload: b[off:],
		Missing: missing,
	}, nil
}
