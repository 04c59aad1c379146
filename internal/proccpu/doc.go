// Package proccpu reads the CPU time a process has used from Linux's
// /proc/PID/stat (user + system), for benchmarks that report CPU per
// request of the processes they measure (dohyo, HBase, Cassandra).
package proccpu
