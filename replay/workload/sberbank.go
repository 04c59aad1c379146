package workload

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Sberbank configures the Sberbank test: Records rows written in logged
// batches of BatchSize inserts (BEGIN BATCH ... APPLY BATCH), then
// Operations reads of InSize random ids each (SELECT ... WHERE id IN).
type Sberbank struct {
	Records     int64
	Operations  int64
	BatchSize   int // default 100
	InSize      int // default 100
	FieldLength int // default 100
	Threads     int // default 16
	Seed        uint64
	Interval    time.Duration // default 1ms between batches or reads
	Start       time.Time
}

// Keyspace and table of the Sberbank workload.
const (
	SberKeyspace = "sberbank"
	SberTable    = "records"
)

// Node is the capture node name.
func (s *Sberbank) Node() string { return "workload-sberbank" }

// SchemaDDL creates the keyspace and table.
func (s *Sberbank) SchemaDDL() string {
	return fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
		"CREATE TABLE %s.%s (id bigint PRIMARY KEY, payload text);\n", SberKeyspace, SberKeyspace, SberTable)
}

func (s *Sberbank) defaults() error {
	if s.Records <= 0 || s.Operations < 0 {
		return fmt.Errorf("workload: records %d, operations %d: want records > 0, operations >= 0", s.Records, s.Operations)
	}
	if s.BatchSize <= 0 {
		s.BatchSize = 100
	}
	if s.InSize <= 0 {
		s.InSize = 100
	}
	if s.FieldLength <= 0 {
		s.FieldLength = 100
	}
	if s.Threads <= 0 {
		s.Threads = 16
	}
	if s.Interval <= 0 {
		s.Interval = time.Millisecond
	}
	if s.Start.IsZero() {
		s.Start = time.Unix(1_700_000_000, 0)
	}
	return nil
}

func i64(v int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

// Generate emits the batches, then the IN reads.
func (s *Sberbank) Generate(emit func(*bindings.Observation)) error {
	if err := s.defaults(); err != nil {
		return err
	}
	e := &emitter{emit: emit, keyspace: SberKeyspace, start: s.Start, interval: s.Interval, seqs: make([]uint64, s.Threads)}
	ins := fmt.Sprintf("INSERT INTO %s (id, payload) VALUES (?, ?)", SberTable)
	n := 0
	for id := int64(0); id < s.Records; n++ {
		size := int(min(int64(s.BatchSize), s.Records-id))
		e.batch = &batchState{size: size}
		for j := 0; j < size; j, id = j+1, id+1 {
			e.op(n%s.Threads, ins, []bindings.Value{{Bytes: i64(id)}, {Bytes: value(id, 0, s.FieldLength)}})
		}
		e.batch = nil
	}
	r := rand.New(rand.NewPCG(s.Seed, 0x5b))
	q := fmt.Sprintf("SELECT id, payload FROM %s WHERE id IN (?%s)", SberTable, strings.Repeat(", ?", s.InSize-1))
	for i := int64(0); i < s.Operations; i++ {
		vals := make([]bindings.Value, s.InSize)
		for j := range vals {
			vals[j] = bindings.Value{Bytes: i64(r.Int64N(s.Records))}
		}
		e.op(int(i%int64(s.Threads)), q, vals)
	}
	return nil
}
