// Package pcap reads packets captured by tcpdump (`tcpdump -w`): the
// classic pcap format in both byte orders with micro- or nanosecond
// timestamps, and pcapng (section header, interface description,
// enhanced, simple and obsolete packet blocks, with per-interface link
// types and timestamp resolutions). It decodes the link, IP and TCP
// headers of a packet into a Segment (Ethernet with VLAN tags, Linux
// cooked SLL and SLL2, raw IP, BSD loopback/null; IPv4 and IPv6), and on
// Linux captures live from an AF_PACKET socket (Live) without libpcap.
//
// Every length in a file is checked against limits and against what the
// file holds before anything is allocated for it: a damaged or hostile
// file yields an error naming its offset (a *FormatError, or
// ErrTruncated for a file cut short), never a panic or an unbounded
// allocation. The package knows nothing of CQL; package capture/wire
// reassembles the segments into streams and decodes them.
package pcap
