package wire

import "github.com/datastax/go-cassandra-native-protocol/primitive"

// Request-body notations (native_protocol_v5.spec §4.1.4-4.1.7) that a
// relay needs without decoding a request.

// <query_parameters> flags.
const (
	QueryFlagValues       = uint32(primitive.QueryFlagValues)
	QueryFlagSkipMetadata = uint32(primitive.QueryFlagSkipMetadata)
	QueryFlagPageSize     = uint32(primitive.QueryFlagPageSize)
	QueryFlagPagingState  = uint32(primitive.QueryFlagPagingState)
	QueryFlagSerial       = uint32(primitive.QueryFlagSerialConsistency)
	QueryFlagTimestamp    = uint32(primitive.QueryFlagDefaultTimestamp)
	QueryFlagNames        = uint32(primitive.QueryFlagValueNames)
	QueryFlagKeyspace     = uint32(primitive.QueryFlagWithKeyspace)
	QueryFlagNowInSeconds = uint32(primitive.QueryFlagNowInSeconds)
)

// PrepareWithKeyspace is the v5 PREPARE flag announcing a keyspace.
const PrepareWithKeyspace = 0x01

// QueryFlags reads <query_parameters> flags: a [byte] before v5, an [int]
// since.
func QueryFlags(r *Reader, version byte) uint32 {
	if version >= 5 {
		return uint32(r.Int())
	}
	return uint32(r.Byte())
}
