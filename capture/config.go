package capture

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Compression is the zstd effort used for frames. "fastest" (the default)
// sustains over a million records per second on one core; "default" and
// "better" save a few percent of space for 1.5-2.5 times the CPU.
type Compression string

// Compression levels.
const (
	CompressFastest Compression = "fastest"
	CompressDefault Compression = "default"
	CompressBetter  Compression = "better"
)

func (c Compression) level() (zstd.EncoderLevel, error) {
	switch c {
	case CompressFastest, "":
		return zstd.SpeedFastest, nil
	case CompressDefault:
		return zstd.SpeedDefault, nil
	case CompressBetter:
		return zstd.SpeedBetterCompression, nil
	}
	return 0, fmt.Errorf("unknown compression %q (want fastest, default or better)", string(c))
}

// WriterConfig configures a capture Writer. The zero value of every field
// means its default (see DefaultWriterConfig); only Dir is required.
type WriterConfig struct {
	Dir          string `yaml:"dir"`
	NodeID       string `yaml:"node_id"` // default: the host name; [A-Za-z0-9._-]
	DohyoVersion string `yaml:"-"`
	SchemaDDL    string `yaml:"-"` // CREATE statements of the catalog; update with SetSchema

	// Queue: when QueueSize records or QueueBytes of values are pending,
	// further records are dropped and counted. Observe never blocks.
	QueueSize  int `yaml:"queue_size"`
	QueueBytes int `yaml:"queue_bytes"`

	// A frame is written when FlushBytes of records are pending or every
	// FlushInterval. A process crash (kill -9) loses at most the records of
	// the last FlushInterval (plus however late the writer goroutine runs;
	// Stats.WrittenThrough says exactly what is written). SyncEveryFlush also
	// fsyncs each frame so that a machine crash loses no more; otherwise
	// segments are fsynced when they are closed.
	FlushInterval  time.Duration `yaml:"flush_interval"`
	FlushBytes     int           `yaml:"flush_bytes"`
	SyncEveryFlush bool          `yaml:"sync_every_flush"`
	Compression    Compression   `yaml:"compression"`

	// Rotation and retention. RetentionBytes 0 keeps every segment; else the
	// oldest closed segments of this node are deleted beyond the total.
	MaxSegmentBytes int64         `yaml:"max_segment_bytes"`
	MaxSegmentAge   time.Duration `yaml:"max_segment_age"`
	RetentionBytes  int64         `yaml:"retention_bytes"`

	// Sampling is the fraction of sessions captured, decided per session id
	// (deterministic for a node). 0 means 1: capture everything.
	Sampling float64 `yaml:"sampling"`
	// Keyspace filters: with Include set only those keyspaces are captured;
	// Exclude wins over Include. A statement's own keyspace counts, else the
	// session's.
	IncludeKeyspaces []string `yaml:"include_keyspaces"`
	ExcludeKeyspaces []string `yaml:"exclude_keyspaces"`

	// Redaction of bound values per column. RedactKey is the HMAC key of
	// the hash action (a secret: never logged).
	Redact    []RedactRule `yaml:"redact"`
	RedactKey string       `yaml:"redact_key"`
	// OmitPagingState stores only the fact that a request carried a paging
	// state (replay never reuses them), not its bytes.
	OmitPagingState bool `yaml:"omit_paging_state"`

	Logger *slog.Logger     `yaml:"-"`
	Clock  func() time.Time `yaml:"-"`

	// openFile creates segment files; tests inject slow or failing sinks.
	openFile func(path string) (segmentFile, error)
}

// DefaultWriterConfig returns the defaults applied to zero fields.
func DefaultWriterConfig() WriterConfig {
	return WriterConfig{
		QueueSize:       65536,
		QueueBytes:      64 << 20,
		FlushInterval:   200 * time.Millisecond,
		FlushBytes:      256 << 10,
		Compression:     CompressFastest,
		MaxSegmentBytes: 256 << 20,
		MaxSegmentAge:   time.Hour,
		Sampling:        1,
	}
}

// withDefaults fills zero fields.
func (c WriterConfig) withDefaults() WriterConfig {
	d := DefaultWriterConfig()
	if c.QueueSize == 0 {
		c.QueueSize = d.QueueSize
	}
	if c.QueueBytes == 0 {
		c.QueueBytes = d.QueueBytes
	}
	if c.FlushInterval == 0 {
		c.FlushInterval = d.FlushInterval
	}
	if c.FlushBytes == 0 {
		c.FlushBytes = d.FlushBytes
	}
	if c.Compression == "" {
		c.Compression = d.Compression
	}
	if c.MaxSegmentBytes == 0 {
		c.MaxSegmentBytes = d.MaxSegmentBytes
	}
	if c.MaxSegmentAge == 0 {
		c.MaxSegmentAge = d.MaxSegmentAge
	}
	if c.Sampling == 0 {
		c.Sampling = 1
	}
	if c.NodeID == "" {
		h, _ := os.Hostname()
		c.NodeID = sanitizeNode(h)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

// Validate checks the configuration (after defaults) with field-scoped
// errors.
func (c WriterConfig) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("capture.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.Dir == "" {
		bad("dir", "required")
	}
	if !validNode(c.NodeID) {
		bad("node_id", "%q: use letters, digits, '.', '_' and '-'", c.NodeID)
	}
	if c.QueueSize < 1 {
		bad("queue_size", "must be positive")
	}
	if c.QueueBytes < 1 {
		bad("queue_bytes", "must be positive")
	}
	if c.FlushInterval < time.Millisecond {
		bad("flush_interval", "at least 1ms")
	}
	if c.FlushBytes < 1 || c.FlushBytes > maxFlushBytes {
		bad("flush_bytes", "between 1 and %d", maxFlushBytes)
	}
	if _, err := c.Compression.level(); err != nil {
		bad("compression", "%v", err)
	}
	if c.MaxSegmentBytes < 0 {
		bad("max_segment_bytes", "must not be negative")
	}
	if c.MaxSegmentAge < 0 {
		bad("max_segment_age", "must not be negative")
	}
	if c.RetentionBytes < 0 {
		bad("retention_bytes", "must not be negative")
	}
	if c.Sampling < 0 || c.Sampling > 1 {
		bad("sampling", "a fraction in (0, 1]")
	}
	if _, err := compileRules(c.Redact); err != nil {
		bad("redact", "%v", err)
	}
	for _, r := range c.Redact {
		if r.Action == RedactHash && c.RedactKey == "" {
			bad("redact_key", "required by the hash action")
			break
		}
	}
	return errors.Join(errs...)
}

// LogValue renders the configuration for logs without the redaction key.
func (c WriterConfig) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("dir", c.Dir), slog.String("node_id", c.NodeID),
		slog.Int("queue_size", c.QueueSize), slog.Duration("flush_interval", c.FlushInterval),
		slog.Int("flush_bytes", c.FlushBytes), slog.Int64("max_segment_bytes", c.MaxSegmentBytes),
		slog.Duration("max_segment_age", c.MaxSegmentAge), slog.Int64("retention_bytes", c.RetentionBytes),
		slog.Float64("sampling", c.Sampling), slog.Int("redact_rules", len(c.Redact)),
	)
}

// maxFlushBytes keeps frames well under the reader's block limit.
const maxFlushBytes = 16 << 20

// maxRecordBytes: larger observations (huge blobs) are dropped and counted.
const maxRecordBytes = 16 << 20

func validNode(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func sanitizeNode(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "node"
	}
	return s
}
