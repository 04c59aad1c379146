// Package pcaptest builds capture files for tests: TCP packets over
// Ethernet, Linux cooked (SLL, SLL2), raw IP or BSD loopback framing, and
// pcap (both byte orders, micro or nano seconds) or pcapng files holding
// them.
package pcaptest
