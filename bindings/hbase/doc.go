// Package hbase implements the widecolumn KV seam on Apache HBase with
// gohbase: a namespace per keyspace, pre-split tables, salted row keys.
package hbase
