// Package lru is a generic, concurrency-safe, bounded least-recently-used
// cache with hit, miss and eviction counters.
package lru
