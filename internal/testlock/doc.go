// Package testlock gives tests in different processes turns at something
// they share: a setting of a test server that only one of them may change
// at a time (Cassandra's full query log, switched on and off through
// nodetool, records to one directory). `go test ./...` runs packages in
// parallel processes, so a mutex is not enough: Lock takes an exclusive
// flock(2) on a file named after the resource in the temporary directory,
// which the kernel releases when the holder exits, however it exits.
package testlock
