package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/hbase"
	"github.com/dohyo/dohyo/replay"
	"github.com/dohyo/dohyo/replay/cqltarget"
)

// urlSettings are a target URL's query parameters, secrets left out (the
// redacted URL is reported next to them).
func urlSettings(raw string) map[string]string {
	out := map[string]string{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for k, v := range u.Query() {
		if !replay.SecretParam(k) {
			out[k] = strings.Join(v, ",")
		}
	}
	return out
}

// describeTargets fills each target's server and effective settings into
// the report's conditions. It runs after the replay, so keyspaces created
// by --create-schema are described too. A server that cannot be asked is
// reported as "unknown (why)", never silently left out.
func describeTargets(ctx context.Context, rep *replay.Report, raws []string, targets []replay.NamedTarget) {
	var keyspaces []string
	for _, run := range rep.Runs {
		for _, ks := range run.Keyspaces {
			if !contains(keyspaces, ks) {
				keyspaces = append(keyspaces, ks)
			}
		}
	}
	for i, nt := range targets {
		info := &rep.Conditions.Targets[i]
		server, settings := describeTarget(ctx, raws[i], nt.Target, keyspaces)
		info.Server = server
		if info.Settings == nil {
			info.Settings = map[string]string{}
		}
		maps.Copy(info.Settings, settings)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// describeTarget names the server behind t and its settings: consistency,
// replication and compression for Cassandra and CQL endpoints; salt,
// regions, compression and encoding for HBase; storage for embedded.
func describeTarget(ctx context.Context, raw string, t replay.Target, keyspaces []string) (string, map[string]string) {
	// Described even after an interrupt: a report must state its conditions.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	set := map[string]string{}
	version := func() string {
		v, ok := t.(replay.Versioner)
		if !ok {
			return "unknown"
		}
		s, err := v.Version(ctx)
		if err != nil {
			return fmt.Sprintf("unknown (%v)", err)
		}
		return s
	}
	switch tt := t.(type) {
	case *cqltarget.Target:
		server := "CQL endpoint, release_version " + version()
		d, err := tt.Describe(ctx, keyspaces)
		maps.Copy(set, d)
		if err != nil {
			set["describe_error"] = err.Error()
		}
		return server, set
	case *replay.BackendTarget:
		switch b := tt.Backend().(type) {
		case *cassandra.Backend:
			cfg := b.Config()
			set["consistency"] = cmp.Or(cfg.Consistency, "as captured")
			set["serial_consistency"] = cmp.Or(cfg.SerialConsistency, "as captured")
			set["protocol"] = "v" + strconv.Itoa(cfg.ProtoVersion)
			cat, err := b.Catalog(ctx)
			if err != nil {
				set["describe_error"] = err.Error()
				break
			}
			for _, name := range keyspaces {
				ks := cat.Keyspace(name)
				if ks == nil {
					continue
				}
				set["replication "+name] = replay.FormatReplication(ks.Replication)
				for tn, tb := range ks.Tables {
					set["compression "+name+"."+tn] = replay.FormatCompression(tb.Params.Compression)
				}
			}
			return "Apache Cassandra " + version(), set
		case *hbase.Backend:
			cfg := b.Config()
			set["salt"] = strconv.Itoa(cfg.Salt)
			switch {
			case cfg.Table.Regions > 0:
				set["regions"] = strconv.Itoa(cfg.Table.Regions) + " per table (pre-split)"
			case cfg.Salt > 0:
				set["regions"] = strconv.Itoa(cfg.Salt) + " per table (one per salt bucket)"
			default:
				set["regions"] = "1 per table (not pre-split)"
			}
			set["compression"] = cmp.Or(cfg.Table.Compression, hbase.DefaultCompression)
			set["encoding"] = cmp.Or(cfg.Table.Encoding, hbase.DefaultEncoding)
			set["consistency"] = "strong (HBase row operations; CQL levels are not applied)"
			set["replication"] = "the cluster's HDFS replication (not visible to dohyo)"
			return "Apache HBase " + version(), set
		case *embedded.Backend:
			cfg, err := embedded.ParseURL(raw)
			if err == nil {
				set["storage"] = cmp.Or(cfg.Dir, "memory")
				set["salt"] = strconv.Itoa(cfg.Engine.Salt)
				set["sync"] = strconv.FormatBool(cfg.Sync)
			}
			set["consistency"] = "n/a (single process)"
			set["replication"] = "none (one copy)"
			return fmt.Sprintf("dohyo %s embedded store (pebble %s)", buildVersion(), moduleVersion("github.com/cockroachdb/pebble/v2")), set
		}
	}
	return "unknown", set
}

// moduleVersion is the version of a module linked into this binary.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
