// Package hdr is a high-dynamic-range histogram of int64 values (latencies
// in nanoseconds) with about three significant digits everywhere, constant-
// time recording, and exact merging, so shard reports add up (DESIGN D10).
package hdr
