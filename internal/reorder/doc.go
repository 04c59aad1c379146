// Package reorder merges several nearly sorted streams into one sorted
// stream with a bounded reorder window: the k-way merge behind reading a
// capture's segments of many nodes (capture.Merger) and Cassandra's full
// query logs of many nodes (fql.Merger). A stream's items may come up to
// the window out of order (a log written at completion, stamped at start);
// the merger holds items back until no stream can still yield an earlier
// one, and never holds more than a stated bound.
package reorder
