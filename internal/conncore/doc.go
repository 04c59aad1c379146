// Package conncore is the connection core shared by dohyo's two ends of
// the CQL native protocol: the server's client connections
// (proxy/cqlserver) and the relay's connections to Cassandra nodes
// (bindings/cassandra/relay). Both multiplex many requests over one
// socket, and both need the same two things from it:
//
//   - Writer: one goroutine writes at a time (the writer role), taken by
//     whichever sender finds nobody writing; frames queued meanwhile leave
//     in the writer's next flush, so answers (or requests) that become
//     ready together cost one write syscall, and no goroutine is woken per
//     frame. A write deadline is set per batch, renewed at most once a
//     second (a socket that accepts nothing for the timeout fails the
//     connection). A frame may switch the connection to v5 segment
//     framing after it (the answer to STARTUP).
//   - Alarm: one runtime timer per connection, armed for the earliest of
//     the deadlines its owner keeps (requests' timeouts), instead of a
//     timer per request; the owner's sweep expires what is due and re-arms
//     it.
//
// The gohbase fork (third_party/gohbase) keeps its own copy of the
// grouped writer: it is a separate module that imports nothing of dohyo
// (its DOHYO-PATCHES.md says so).
package conncore
