package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/replay"
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
func describeTargets(ctx context.Context, rep *replay.Report, targets []replay.NamedTarget) {
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
		server, settings := describeTarget(ctx, nt.Target, keyspaces)
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

// describeTarget names the server behind t and its settings, as the
// target (a CQL endpoint) or its backend describes them
// (bindings.ServerDescriber): consistency, replication and compression
// for Cassandra and CQL endpoints; salt, regions, compression and
// encoding for HBase; storage for embedded.
func describeTarget(ctx context.Context, t replay.Target, keyspaces []string) (string, map[string]string) {
	// Described even after an interrupt: a report must state its conditions.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	d, ok := t.(bindings.ServerDescriber)
	if bt, isBackend := t.(*replay.BackendTarget); isBackend {
		d, ok = bt.Backend().(bindings.ServerDescriber)
	}
	if !ok {
		return "unknown", map[string]string{}
	}
	desc, err := d.DescribeServer(ctx, keyspaces)
	set := desc.Settings
	if set == nil {
		set = map[string]string{}
	}
	if err != nil {
		set["describe_error"] = err.Error()
	}
	server := cmp.Or(desc.Product, "unknown")
	if v, ok := t.(replay.Versioner); ok {
		switch s, err := v.Version(ctx); {
		case err == nil:
			server += " " + s
		case !errors.Is(err, replay.ErrNoVersion):
			server += fmt.Sprintf(" unknown (%v)", err)
		}
	}
	return server, set
}
