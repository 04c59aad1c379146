// Package murmur3 is Cassandra's Murmur3Partitioner: the token of a
// serialized partition key. The engine orders rows by it (and answers
// token()), and the Cassandra relay routes requests to the node that owns
// it, as drivers do.
package murmur3
