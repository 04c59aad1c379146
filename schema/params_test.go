package schema

import (
	"maps"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func TestTableParamsFromOptions(t *testing.T) {
	cases := []struct {
		name, with string
		check      func(p TableParams) bool
	}{
		{"defaults", "", func(p TableParams) bool {
			d := DefaultTableParams()
			return p.equal(&d)
		}},
		{"lcs changes bloom default", "compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 160}", func(p TableParams) bool {
			return p.BloomFilterFPChance == 0.1 && maps.Equal(p.Compaction, map[string]string{
				"class": compactionPackage + "LeveledCompactionStrategy", "sstable_size_in_mb": "160",
				"max_threshold": "32", "min_threshold": "4"})
		}},
		{"explicit bloom wins", "compaction = {'class': 'LeveledCompactionStrategy'} AND bloom_filter_fp_chance = 0.05", func(p TableParams) bool {
			return p.BloomFilterFPChance == 0.05
		}},
		{"caching", "caching = {'keys': 'none', 'rows_per_partition': 10}", func(p TableParams) bool {
			return maps.Equal(p.Caching, map[string]string{"keys": "NONE", "rows_per_partition": "10"})
		}},
		{"caching rows only", "caching = {'rows_per_partition': 'ALL'}", func(p TableParams) bool {
			return maps.Equal(p.Caching, map[string]string{"keys": "NONE", "rows_per_partition": "ALL"})
		}},
		{"compression", "compression = {'class': 'ZstdCompressor', 'compression_level': 3}", func(p TableParams) bool {
			return maps.Equal(p.Compression, map[string]string{"class": compressionPackage + "ZstdCompressor",
				"chunk_length_in_kb": "16", "compression_level": "3"})
		}},
		{"compression off", "compression = {'enabled': false}", func(p TableParams) bool {
			return maps.Equal(p.Compression, map[string]string{"enabled": "false"})
		}},
		{"retry policies", "speculative_retry = '99.5PERCENTILE' AND additional_write_policy = '50ms'", func(p TableParams) bool {
			return p.SpeculativeRetry == "99.5p" && p.AdditionalWritePolicy == "50ms"
		}},
		{"retry always and hybrid", "speculative_retry = 'always' AND additional_write_policy = 'min(10ms, 95p)'", func(p TableParams) bool {
			return p.SpeculativeRetry == "ALWAYS" && p.AdditionalWritePolicy == "MIN(95p,10ms)"
		}},
		{"scalars", "comment = 'c' AND cdc = true AND allow_auto_snapshot = 'no' AND incremental_backups = 0 AND crc_check_chance = 0.5 " +
			"AND default_time_to_live = 60 AND gc_grace_seconds = 0 AND max_index_interval = 512 AND min_index_interval = 64 " +
			"AND memtable_flush_period_in_ms = 1000 AND read_repair = 'none' AND memtable = 'trie'", func(p TableParams) bool {
			return p.Comment == "c" && p.CDC && !p.AllowAutoSnapshot && !p.IncrementalBackups && p.CRCCheckChance == 0.5 &&
				p.DefaultTimeToLive == 60 && p.GCGraceSeconds == 0 && p.MaxIndexInterval == 512 && p.MinIndexInterval == 64 &&
				p.MemtableFlushPeriodInMs == 1000 && p.ReadRepair == "NONE" && p.Memtable == "trie"
		}},
		{"unknown memtable falls back", "memtable = 'fancy'", func(p TableParams) bool { return p.Memtable == "default" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stmt := "CREATE TABLE t (k int PRIMARY KEY)"
			if tc.with != "" {
				stmt += " WITH " + tc.with
			}
			c := newCatalog(t, stmt)
			if p := c.Table("ks", "t").Params; !tc.check(p) {
				t.Errorf("params = %+v", p)
			}
		})
	}
}

func TestTableParamErrors(t *testing.T) {
	c := newCatalog(t)
	tbl := "CREATE TABLE t (k int PRIMARY KEY) WITH "
	cases := []errCase{
		{"bloom high", tbl + "bloom_filter_fp_chance = 1.23", ConfigError, "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 1.23)"},
		{"bloom tiny", tbl + "bloom_filter_fp_chance = 0.0000001", ConfigError, "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 1.0E-7)"},
		{"bloom not a number", tbl + "bloom_filter_fp_chance = 'x'", SyntaxError, "Invalid double value x for 'bloom_filter_fp_chance'"},
		{"crc", tbl + "crc_check_chance = 2", ConfigError, "crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got 2.0)"},
		{"ttl negative", tbl + "default_time_to_live = -1", ConfigError, "default_time_to_live must be greater than or equal to 0 (got -1)"},
		{"ttl too big", tbl + "default_time_to_live = 630720001", ConfigError, "default_time_to_live must be less than or equal to 630720000 (got 630720001)"},
		{"ttl not int", tbl + "default_time_to_live = 1.5", SyntaxError, "Invalid integer value 1.5 for 'default_time_to_live'"},
		{"min index", tbl + "min_index_interval = 0", ConfigError, "min_index_interval must be greater than or equal to 1 (got 0)"},
		{"max index", tbl + "max_index_interval = 64", ConfigError, "max_index_interval must be greater than or equal to min_index_interval (128) (got 64)"},
		{"flush period", tbl + "memtable_flush_period_in_ms = -5", ConfigError, "memtable_flush_period_in_ms must be greater than or equal to 0 (got -5)"},
		{"bool", tbl + "cdc = 'maybe'", SyntaxError, "Invalid boolean value maybe for 'cdc'. Positive values can be '1', 'true' or 'yes' (case insensitive) and negative values can be '0', 'false' or 'no' (case insensitive)."},
		{"caching string", tbl + "caching = 'ALL'", SyntaxError, "Invalid value for property 'caching'. It should be a map."},
		{"comment map", tbl + "comment = {'a': 'b'}", SyntaxError, "Invalid value for property 'comment'. It should be a string"},
		{"caching keys", tbl + "caching = {'keys': 'some'}", ConfigError, "Invalid value 'some' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed"},
		{"caching rows", tbl + "caching = {'rows_per_partition': 'many'}", ConfigError, "Invalid value 'many' for caching sub-option 'rows_per_partition': only 'ALL', 'NONE', and integer values are allowed"},
		{"caching extra", tbl + "caching = {'keys': 'ALL', 'b': '1', 'a': '2'}", ConfigError, "Invalid caching sub-options [a, b]: only 'keys' and 'rows_per_partition' are allowed"},
		{"compaction no class", tbl + "compaction = {'min_threshold': 2}", ConfigError, "Missing sub-option 'class' for the 'compaction' option."},
		{"compaction unknown", tbl + "compaction = {'class': 'FancyCompactionStrategy'}", ConfigError, "Unable to find compaction strategy class 'org.apache.cassandra.db.compaction.FancyCompactionStrategy'"},
		{"compression no class", tbl + "compression = {'chunk_length_in_kb': 4}", ConfigError, "Missing sub-option 'class' for the 'compression' option."},
		{"compression unknown", tbl + "compression = {'class': 'BrotliCompressor'}", ConfigError, "Could not create Compression for type org.apache.cassandra.io.compress.BrotliCompressor"},
		{"compression chunk", tbl + "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 3}", ConfigError, "chunk_length_in_kb must be a power of 2"},
		{"compression disabled extra", tbl + "compression = {'enabled': false, 'class': 'LZ4Compressor'}", ConfigError, "If the 'enabled' option is set to false no other options must be specified"},
		{"retry", tbl + "speculative_retry = 'sometimes'", ConfigError, "Invalid value sometimes for option 'speculative_retry'"},
		{"retry percentile", tbl + "speculative_retry = '101p'", ConfigError, "Invalid value 101p for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)"},
		{"read repair", tbl + "read_repair = 'ASYNC'", ConfigError, "Invalid value ASYNC for option 'read_repair': only 'BLOCKING' and 'NONE' are allowed"},
		{"bad id", tbl + "id = 'nope'", ConfigError, "Invalid table id"},
		{"duplicate", tbl + "comment = 'a' AND comment = 'b'", SyntaxError, "Multiple definition for property 'comment'"},
	}
	runErrCases(t, c, cases)
}

func TestJavaDouble(t *testing.T) {
	cases := map[float64]string{
		0.01: "0.01", 1: "1.0", 0.1: "0.1", 1.23: "1.23", 1e-7: "1.0E-7", 6.71e-05: "6.71E-5",
		0: "0.0", 1e7: "1.0E7", 123456.5: "123456.5", -0.5: "-0.5", 0.001: "0.001",
	}
	for f, want := range cases {
		if got := cql.JavaFloatString(f, 64); got != want {
			t.Errorf("cql.JavaFloatString(%v, 64) = %s, want %s", f, got, want)
		}
	}
}
