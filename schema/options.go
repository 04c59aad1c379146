package schema

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Options tune how a catalog applies DDL. The zero value means defaults;
// tests inject Now and Rand to make versions and table ids deterministic.
type Options struct {
	// Now is the clock for catalog versions and dropped-column times
	// (default time.Now).
	Now func() time.Time
	// Rand supplies table ids and version clock-sequence/node bytes
	// (default crypto/rand.Reader).
	Rand io.Reader
	// DefaultKeyspaceRF is used when SimpleStrategy or
	// NetworkTopologyStrategy is given without a replication factor, as
	// Cassandra's default_keyspace_rf (default 1).
	DefaultKeyspaceRF int
	// Datacenters receive NetworkTopologyStrategy's 'replication_factor'
	// auto-expansion (default ["datacenter1"]). Other datacenter names are
	// accepted as written: dohyo's backends have no real topology.
	Datacenters []string
	// CheckFunction validates a new function's body before CREATE FUNCTION
	// commits it, after every other check. The catalog keeps bodies as
	// text; the engine that runs them (engine/udf/java) decides what it can
	// compile, so it supplies this. nil accepts any body. An error that is
	// not a *Error is reported as Invalid.
	CheckFunction func(*Function) error
}

func (o *Options) now() time.Time {
	if o == nil || o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *Options) rand() io.Reader {
	if o == nil || o.Rand == nil {
		return rand.Reader
	}
	return o.Rand
}

func (o *Options) defaultRF() int {
	if o == nil || o.DefaultKeyspaceRF <= 0 {
		return 1
	}
	return o.DefaultKeyspaceRF
}

func (o *Options) checkFunction(f *Function) *Error {
	if o == nil || o.CheckFunction == nil {
		return nil
	}
	err := o.CheckFunction(f)
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return invalidf("%s", err.Error())
}

func (o *Options) datacenters() []string {
	if o == nil || len(o.Datacenters) == 0 {
		return []string{"datacenter1"}
	}
	return o.Datacenters
}

// NewWithOptions returns an empty catalog that applies DDL with opts; every
// catalog derived from it by Apply keeps them.
func NewWithOptions(opts Options) *Catalog {
	c := New()
	c.opts = &opts
	return c
}

// New returns an empty catalog with default options.
func New() *Catalog {
	return &Catalog{Keyspaces: map[string]*Keyspace{}}
}

// WithOptions returns a shallow copy of c that applies DDL with opts (for
// catalogs that were unmarshalled or merged).
func (c *Catalog) WithOptions(opts Options) *Catalog {
	n := *c
	n.opts = &opts
	return &n
}

// Change describes an applied DDL statement as the native protocol's
// SCHEMA_CHANGE result does.
type Change struct {
	Type     string // "CREATED", "UPDATED" or "DROPPED"
	Target   string // "KEYSPACE" or "TABLE"
	Keyspace string
	Table    string // "" for keyspace changes
	// ArgTypes are a FUNCTION or AGGREGATE change's argument types (CQL
	// text, joined by ArgSep so Change stays comparable; see Args).
	ArgTypes string
}

// ArgSep separates Change.ArgTypes.
const ArgSep = "\x1f"

// Args returns a FUNCTION or AGGREGATE change's argument types.
func (c *Change) Args() []string {
	if c.ArgTypes == "" {
		return []string{}
	}
	return strings.Split(c.ArgTypes, ArgSep)
}

// Change types and targets.
const (
	ChangeCreated = "CREATED"
	ChangeUpdated = "UPDATED"
	ChangeDropped = "DROPPED"

	TargetKeyspace = "KEYSPACE"
	TargetTable    = "TABLE"
)

// uuidEpochOffset is the number of 100ns intervals between the UUID epoch
// (1582-10-15) and the Unix epoch.
const uuidEpochOffset = 0x01B21DD213814000

// timeUUID returns a version-1 UUID for t. When prev is a version-1 UUID at
// or after t, the timestamp is bumped past it so versions always differ.
func timeUUID(o *Options, prev string) (string, error) {
	ts := uint64(o.now().UnixNano()/100) + uuidEpochOffset
	if p, ok := timeUUIDTicks(prev); ok && ts <= p {
		ts = p + 1
	}
	var b [16]byte
	if _, err := io.ReadFull(o.rand(), b[8:]); err != nil {
		return "", fmt.Errorf("schema: random source: %w", err)
	}
	b[0], b[1], b[2], b[3] = byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts)
	b[4], b[5] = byte(ts>>40), byte(ts>>32)
	b[6], b[7] = byte(ts>>56)&0x0f|0x10, byte(ts>>48)
	b[8] = b[8]&0x3f | 0x80
	b[10] |= 0x01 // multicast bit: a random node id, not a MAC address
	return formatUUID(b), nil
}

// timeUUIDTicks extracts the 60-bit timestamp of a version-1 UUID string.
func timeUUIDTicks(s string) (uint64, bool) {
	b, ok := parseUUID(s)
	if !ok || b[6]>>4 != 1 {
		return 0, false
	}
	ts := uint64(b[6]&0x0f)<<56 | uint64(b[7])<<48 | uint64(b[4])<<40 | uint64(b[5])<<32 |
		uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	return ts, true
}

// randomUUID returns a version-4 UUID.
func randomUUID(o *Options) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(o.rand(), b[:]); err != nil {
		return "", fmt.Errorf("schema: random source: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b), nil
}

// hashUUID returns a version-3 (MD5, name-based) UUID of data.
func hashUUID(data []byte) string {
	b := md5.Sum(data)
	b[6] = b[6]&0x0f | 0x30
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func parseUUID(s string) ([16]byte, bool) {
	var b [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return b, false
	}
	h := strings.ReplaceAll(s, "-", "")
	if _, err := hex.Decode(b[:], []byte(h)); err != nil {
		return b, false
	}
	return b, true
}
