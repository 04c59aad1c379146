package schema

import (
	"maps"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// TableParams are a table's WITH options, typed, with Cassandra 5.0's
// defaults filled in. Map values are never mutated once in a catalog.
type TableParams struct {
	AdditionalWritePolicy   string            `json:"additional_write_policy"`
	AllowAutoSnapshot       bool              `json:"allow_auto_snapshot"`
	BloomFilterFPChance     float64           `json:"bloom_filter_fp_chance"`
	Caching                 map[string]string `json:"caching"`
	CDC                     bool              `json:"cdc"`
	Comment                 string            `json:"comment"`
	Compaction              map[string]string `json:"compaction"`  // "class" is the full class name
	Compression             map[string]string `json:"compression"` // {"enabled": "false"} when off
	Memtable                string            `json:"memtable"`
	CRCCheckChance          float64           `json:"crc_check_chance"`
	DefaultTimeToLive       int               `json:"default_time_to_live"` // seconds, 0 = none
	Extensions              map[string]string `json:"extensions"`           // values as 0x-hex blobs
	GCGraceSeconds          int               `json:"gc_grace_seconds"`
	IncrementalBackups      bool              `json:"incremental_backups"`
	MaxIndexInterval        int               `json:"max_index_interval"`
	MemtableFlushPeriodInMs int               `json:"memtable_flush_period_in_ms"`
	MinIndexInterval        int               `json:"min_index_interval"`
	ReadRepair              string            `json:"read_repair"`
	SpeculativeRetry        string            `json:"speculative_retry"`
}

// Class-name prefixes Cassandra adds to short strategy and compressor names.
const (
	compactionPackage  = "org.apache.cassandra.db.compaction."
	compressionPackage = "org.apache.cassandra.io.compress."
	maxTTL             = 630720000 // 20 years, Cassandra's Attributes.MAX_TTL
	minBloomFPChance   = 6.71e-05  // BloomCalculations.minSupportedBloomFilterFpChance()
)

var (
	knownCompactions = map[string]bool{
		"SizeTieredCompactionStrategy": true, "LeveledCompactionStrategy": true,
		"TimeWindowCompactionStrategy": true, "UnifiedCompactionStrategy": true,
	}
	knownCompressors = map[string]bool{
		"LZ4Compressor": true, "SnappyCompressor": true, "DeflateCompressor": true,
		"ZstdCompressor": true, "NoopCompressor": true,
	}
	knownMemtables = map[string]bool{"default": true, "skiplist": true, "trie": true}

	// tableKeywords are the valid WITH options of CREATE/ALTER TABLE.
	tableKeywords = map[string]bool{
		"additional_write_policy": true, "allow_auto_snapshot": true, "bloom_filter_fp_chance": true,
		"caching": true, "cdc": true, "comment": true, "compaction": true, "compression": true,
		"memtable": true, "crc_check_chance": true, "default_time_to_live": true, "extensions": true,
		"gc_grace_seconds": true, "incremental_backups": true, "max_index_interval": true,
		"memtable_flush_period_in_ms": true, "min_index_interval": true, "read_repair": true,
		"speculative_retry": true, "id": true,
	}
)

// DefaultTableParams returns Cassandra 5.0's defaults for a new table.
func DefaultTableParams() TableParams {
	return TableParams{
		AdditionalWritePolicy: "99p",
		AllowAutoSnapshot:     true,
		BloomFilterFPChance:   0.01,
		Caching:               map[string]string{"keys": "ALL", "rows_per_partition": "NONE"},
		Compaction: map[string]string{
			"class":         compactionPackage + "SizeTieredCompactionStrategy",
			"max_threshold": "32", "min_threshold": "4",
		},
		Compression:        map[string]string{"chunk_length_in_kb": "16", "class": compressionPackage + "LZ4Compressor"},
		Memtable:           "default",
		CRCCheckChance:     1.0,
		Extensions:         map[string]string{},
		GCGraceSeconds:     864000,
		IncrementalBackups: true,
		MaxIndexInterval:   2048,
		MinIndexInterval:   128,
		ReadRepair:         "BLOCKING",
		SpeculativeRetry:   "99p",
	}
}

// buildTableParams applies WITH options to base (the defaults for CREATE,
// the current params for ALTER), following TableAttributes.build and
// TableParams.validate. It returns the table id given with WITH id = ....
func buildTableParams(base TableParams, p *properties, isNew bool) (TableParams, string, *Error) {
	if err := p.validate(tableKeywords); err != nil {
		return base, "", err
	}
	out := base
	for _, o := range tableOptions {
		if p.has(o.name) {
			if err := o.set(p, &out, isNew); err != nil {
				return base, "", err
			}
		}
	}
	id, err := tableID(p, isNew)
	if err != nil {
		return base, "", err
	}
	if err := out.validate(); err != nil {
		return base, "", err
	}
	return out, id, nil
}

// tableOption reads one WITH option of CREATE/ALTER TABLE into the
// table's parameters.
type tableOption struct {
	name string
	set  func(p *properties, out *TableParams, isNew bool) *Error
}

func boolOption(name string, dst func(*TableParams) *bool) tableOption {
	return tableOption{name, func(p *properties, out *TableParams, _ bool) (err *Error) {
		*dst(out), err = p.boolean(name)
		return err
	}}
}

func doubleOption(name string, dst func(*TableParams) *float64) tableOption {
	return tableOption{name, func(p *properties, out *TableParams, _ bool) (err *Error) {
		*dst(out), err = p.double(name)
		return err
	}}
}

func intOption(name string, dst func(*TableParams) *int) tableOption {
	return tableOption{name, func(p *properties, out *TableParams, _ bool) (err *Error) {
		*dst(out), err = p.integer(name)
		return err
	}}
}

func mapOption(name string, parse func(map[string]string) (map[string]string, *Error), dst func(*TableParams) *map[string]string) tableOption {
	return tableOption{name, func(p *properties, out *TableParams, _ bool) *Error {
		m, err := p.mapVal(name)
		if err != nil {
			return err
		}
		*dst(out), err = parse(m)
		return err
	}}
}

func retryOption(name string, dst func(*TableParams) *string) tableOption {
	return tableOption{name, func(p *properties, out *TableParams, _ bool) *Error {
		s, err := p.str(name)
		if err != nil {
			return err
		}
		*dst(out), err = parseRetryPolicy(name, s)
		return err
	}}
}

// tableOptions are read in this order (the first bad one is reported).
var tableOptions = []tableOption{
	boolOption("allow_auto_snapshot", func(t *TableParams) *bool { return &t.AllowAutoSnapshot }),
	doubleOption("bloom_filter_fp_chance", func(t *TableParams) *float64 { return &t.BloomFilterFPChance }),
	mapOption("caching", parseCaching, func(t *TableParams) *map[string]string { return &t.Caching }),
	{"comment", func(p *properties, out *TableParams, _ bool) (err *Error) {
		out.Comment, err = p.str("comment")
		return err
	}},
	{"compaction", func(p *properties, out *TableParams, isNew bool) *Error {
		m, err := p.mapVal("compaction")
		if err != nil {
			return err
		}
		if out.Compaction, err = parseCompaction(m); err != nil {
			return err
		}
		// A new table's bloom filter default follows its compaction.
		if isNew && !p.has("bloom_filter_fp_chance") {
			out.BloomFilterFPChance = 0.01
			if out.Compaction["class"] == compactionPackage+"LeveledCompactionStrategy" {
				out.BloomFilterFPChance = 0.1
			}
		}
		return nil
	}},
	mapOption("compression", parseCompression, func(t *TableParams) *map[string]string { return &t.Compression }),
	{"memtable", func(p *properties, out *TableParams, _ bool) *Error {
		s, err := p.str("memtable")
		if err != nil {
			return err
		}
		out.Memtable = "default" // unknown configurations fall back, as in Cassandra
		if knownMemtables[s] {
			out.Memtable = s
		}
		return nil
	}},
	intOption("default_time_to_live", func(t *TableParams) *int { return &t.DefaultTimeToLive }),
	intOption("gc_grace_seconds", func(t *TableParams) *int { return &t.GCGraceSeconds }),
	boolOption("incremental_backups", func(t *TableParams) *bool { return &t.IncrementalBackups }),
	intOption("max_index_interval", func(t *TableParams) *int { return &t.MaxIndexInterval }),
	intOption("memtable_flush_period_in_ms", func(t *TableParams) *int { return &t.MemtableFlushPeriodInMs }),
	intOption("min_index_interval", func(t *TableParams) *int { return &t.MinIndexInterval }),
	retryOption("speculative_retry", func(t *TableParams) *string { return &t.SpeculativeRetry }),
	retryOption("additional_write_policy", func(t *TableParams) *string { return &t.AdditionalWritePolicy }),
	doubleOption("crc_check_chance", func(t *TableParams) *float64 { return &t.CRCCheckChance }),
	boolOption("cdc", func(t *TableParams) *bool { return &t.CDC }),
	{"read_repair", func(p *properties, out *TableParams, _ bool) *Error {
		s, err := p.str("read_repair")
		if err != nil {
			return err
		}
		u := strings.ToUpper(s)
		if u != "BLOCKING" && u != "NONE" {
			return configf("Invalid value %s for option 'read_repair': only 'BLOCKING' and 'NONE' are allowed", s)
		}
		out.ReadRepair = u
		return nil
	}},
}

// tableID reads the id option: only at CREATE, a UUID.
func tableID(p *properties, isNew bool) (string, *Error) {
	if !p.has("id") {
		return "", nil
	}
	if !isNew {
		return "", configf("Cannot alter table id.")
	}
	s, err := p.str("id")
	if err != nil {
		return "", err
	}
	if _, ok := parseUUID(strings.ToLower(s)); !ok {
		return "", configf("Invalid table id")
	}
	return strings.ToLower(s), nil
}

// validate checks ranges as TableParams.validate does (ConfigError).
func (t *TableParams) validate() *Error {
	if t.BloomFilterFPChance <= minBloomFPChance || t.BloomFilterFPChance > 1 {
		return configf("bloom_filter_fp_chance must be larger than %s and less than or equal to 1.0 (got %s)",
			cql.JavaFloatString(minBloomFPChance, 64), cql.JavaFloatString(t.BloomFilterFPChance, 64))
	}
	if t.CRCCheckChance < 0 || t.CRCCheckChance > 1.0 {
		return configf("crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got %s)",
			cql.JavaFloatString(t.CRCCheckChance, 64))
	}
	if t.DefaultTimeToLive < 0 {
		return configf("default_time_to_live must be greater than or equal to 0 (got %d)", t.DefaultTimeToLive)
	}
	if t.DefaultTimeToLive > maxTTL {
		return configf("default_time_to_live must be less than or equal to %d (got %d)", maxTTL, t.DefaultTimeToLive)
	}
	if t.GCGraceSeconds < 0 {
		return configf("gc_grace_seconds must be greater than or equal to 0 (got %d)", t.GCGraceSeconds)
	}
	if t.MinIndexInterval < 1 {
		return configf("min_index_interval must be greater than or equal to 1 (got %d)", t.MinIndexInterval)
	}
	if t.MaxIndexInterval < t.MinIndexInterval {
		return configf("max_index_interval must be greater than or equal to min_index_interval (%d) (got %d)",
			t.MinIndexInterval, t.MaxIndexInterval)
	}
	if t.MemtableFlushPeriodInMs < 0 {
		return configf("memtable_flush_period_in_ms must be greater than or equal to 0 (got %d)", t.MemtableFlushPeriodInMs)
	}
	return nil
}

func parseCaching(m map[string]string) (map[string]string, *Error) {
	rest := maps.Clone(m)
	keys, rows := "NONE", "NONE"
	if v, ok := rest["keys"]; ok {
		delete(rest, "keys")
		switch {
		case strings.EqualFold(v, "ALL"):
			keys = "ALL"
		case strings.EqualFold(v, "NONE"):
		default:
			return nil, configf("Invalid value '%s' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed", v)
		}
	}
	if v, ok := rest["rows_per_partition"]; ok {
		delete(rest, "rows_per_partition")
		switch {
		case strings.EqualFold(v, "ALL"):
			rows = "ALL"
		case strings.EqualFold(v, "NONE"):
		default:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 || strings.ContainsAny(v, "+-") {
				return nil, configf("Invalid value '%s' for caching sub-option 'rows_per_partition': "+
					"only 'ALL', 'NONE', and integer values are allowed", v)
			}
			if n > 0 {
				rows = strconv.FormatInt(n, 10)
			}
		}
	}
	if len(rest) > 0 {
		return nil, configf("Invalid caching sub-options %s: only 'keys' and 'rows_per_partition' are allowed", javaSet(rest))
	}
	return map[string]string{"keys": keys, "rows_per_partition": rows}, nil
}

func parseCompaction(m map[string]string) (map[string]string, *Error) {
	opts := maps.Clone(m)
	class, ok := opts["class"]
	if !ok {
		return nil, configf("Missing sub-option 'class' for the 'compaction' option.")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = compactionPackage + class
	}
	if !strings.HasPrefix(full, compactionPackage) || !knownCompactions[strings.TrimPrefix(full, compactionPackage)] {
		return nil, configf("Unable to find compaction strategy class '%s'", full)
	}
	opts["class"] = full
	if _, ok := opts["min_threshold"]; !ok {
		opts["min_threshold"] = "4"
	}
	if _, ok := opts["max_threshold"]; !ok {
		opts["max_threshold"] = "32"
	}
	return opts, nil
}

func parseCompression(m map[string]string) (map[string]string, *Error) {
	opts := maps.Clone(m)
	enabled := true
	if v, ok := opts["enabled"]; ok {
		enabled = strings.EqualFold(v, "true")
		delete(opts, "enabled")
	}
	_, hasClass := opts["class"]
	if len(m) > 0 && enabled && !hasClass {
		return nil, configf("Missing sub-option 'class' for the 'compression' option.")
	}
	if !enabled {
		if len(opts) > 0 {
			return nil, configf("If the 'enabled' option is set to false no other options must be specified")
		}
		return map[string]string{"enabled": "false"}, nil
	}
	class := opts["class"]
	delete(opts, "class")
	if class == "" {
		return map[string]string{"enabled": "false"}, nil
	}
	full := class
	if !strings.Contains(class, ".") {
		full = compressionPackage + class
	}
	if !strings.HasPrefix(full, compressionPackage) || !knownCompressors[strings.TrimPrefix(full, compressionPackage)] {
		return nil, configf("Could not create Compression for type %s", full)
	}
	chunk := 16
	if v, ok := opts["chunk_length_in_kb"]; ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, configf("Invalid value %s for chunk_length_in_kb", v)
		}
		if n <= 0 {
			return nil, configf("Invalid negative or null chunk_length_in_kb")
		}
		if n&(n-1) != 0 {
			return nil, configf("chunk_length_in_kb must be a power of 2")
		}
		chunk = int(n)
	}
	opts["class"] = full
	opts["chunk_length_in_kb"] = strconv.Itoa(chunk)
	return opts, nil
}

var (
	percentileRe = regexp.MustCompile(`(?i)^([0-9.]+)p(ercentile)?$`)
	fixedRe      = regexp.MustCompile(`(?i)^([0-9.]+)ms$`)
	hybridRe     = regexp.MustCompile(`(?i)^(MIN|MAX)\(([0-9.]+[a-z]+)\s*,\s*([0-9.]+[a-z]+)\)$`)
)

// parseRetryPolicy normalises a speculative_retry/additional_write_policy
// value to the spelling Cassandra stores ("99p", "50ms", "ALWAYS", "NONE",
// "MIN(99p,50ms)").
func parseRetryPolicy(name, s string) (string, *Error) {
	bad := configf("Invalid value %s for option '%s'", s, name)
	switch {
	case strings.EqualFold(s, "ALWAYS"):
		return "ALWAYS", nil
	case strings.EqualFold(s, "NONE"):
		return "NONE", nil
	case percentileRe.MatchString(s):
		v, err := strconv.ParseFloat(percentileRe.FindStringSubmatch(s)[1], 64)
		if err != nil {
			return "", bad
		}
		if v < 0 || v > 100 {
			return "", configf("Invalid value %s for PERCENTILE option '%s': must be between (0.0 and 100.0)", s, name)
		}
		return formatPercentile(v), nil
	case fixedRe.MatchString(s):
		v, err := strconv.ParseFloat(fixedRe.FindStringSubmatch(s)[1], 64)
		if err != nil {
			return "", bad
		}
		return strconv.FormatInt(int64(v), 10) + "ms", nil
	case hybridRe.MatchString(s):
		g := hybridRe.FindStringSubmatch(s)
		a, errA := parseRetryPolicy(name, g[2])
		b, errB := parseRetryPolicy(name, g[3])
		if errA != nil || errB != nil {
			return "", bad
		}
		if strings.HasSuffix(a, "ms") {
			a, b = b, a
		}
		if !strings.HasSuffix(a, "p") || !strings.HasSuffix(b, "ms") {
			return "", bad
		}
		return strings.ToUpper(g[1]) + "(" + a + "," + b + ")", nil
	}
	return "", bad
}

// formatPercentile mimics DecimalFormat("#.####") followed by "p".
func formatPercentile(v float64) string {
	r := math.Round(v*10000) / 10000
	return strconv.FormatFloat(r, 'f', -1, 64) + "p"
}

// javaSet renders map keys like Java's Set.toString ("[a, b]").
func javaSet(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ", ") + "]"
}

// equal reports whether two param sets are the same (ALTER no-ops).
func (t *TableParams) equal(o *TableParams) bool {
	return t.AdditionalWritePolicy == o.AdditionalWritePolicy && t.AllowAutoSnapshot == o.AllowAutoSnapshot &&
		t.BloomFilterFPChance == o.BloomFilterFPChance && maps.Equal(t.Caching, o.Caching) &&
		t.CDC == o.CDC && t.Comment == o.Comment && maps.Equal(t.Compaction, o.Compaction) &&
		maps.Equal(t.Compression, o.Compression) && t.Memtable == o.Memtable &&
		t.CRCCheckChance == o.CRCCheckChance && t.DefaultTimeToLive == o.DefaultTimeToLive &&
		maps.Equal(t.Extensions, o.Extensions) && t.GCGraceSeconds == o.GCGraceSeconds &&
		t.IncrementalBackups == o.IncrementalBackups && t.MaxIndexInterval == o.MaxIndexInterval &&
		t.MemtableFlushPeriodInMs == o.MemtableFlushPeriodInMs && t.MinIndexInterval == o.MinIndexInterval &&
		t.ReadRepair == o.ReadRepair && t.SpeculativeRetry == o.SpeculativeRetry
}
