package relay

import "github.com/dohyo/dohyo/bindings"

// Held is the server's place on a backend connection's reader for what
// its Waiters defer until the reader has handled the responses it has
// already read (bindings.RelayHold): the reader releases it before it
// waits for Cassandra again and when it stops.
type Held = bindings.RelayHold

// A Releaser is what a server keeps in a Held.
type Releaser = bindings.Releaser
