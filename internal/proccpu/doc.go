// Package proccpu reads CPU time from Linux's /proc: what a process has
// used (/proc/PID/stat, user + system) and what the whole machine has
// spent busy (/proc/stat), for benchmarks that report the CPU per request
// of the processes they measure (dohyo, HBase, Cassandra) and how loaded
// the machine was.
package proccpu
