package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// URLSettings are a target URL's query parameters, secrets left out (the
// redacted URL is reported next to them).
func URLSettings(raw string) map[string]string {
	out := map[string]string{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for k, v := range u.Query() {
		if !SecretParam(k) {
			out[k] = strings.Join(v, ",")
		}
	}
	return out
}

// DescribeTargets fills each target's server and effective settings into
// rep's conditions (targets are in the order of rep.Conditions.Targets).
// Call it after the replay, so that keyspaces created by CreateSchema are
// described too. A server that cannot be asked is
// reported as "unknown (why)", never silently left out.
func DescribeTargets(ctx context.Context, rep *Report, targets []NamedTarget) {
	var keyspaces []string
	for _, run := range rep.Runs {
		for _, ks := range run.Keyspaces {
			if !slices.Contains(keyspaces, ks) {
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

// describeTarget names the server behind t and its settings, as the
// target (a CQL endpoint) or its backend describes them
// (bindings.ServerDescriber): consistency, replication and compression
// for Cassandra and CQL endpoints; salt, regions, compression and
// encoding for HBase; storage for embedded.
func describeTarget(ctx context.Context, t Target, keyspaces []string) (string, map[string]string) {
	// Described even after an interrupt: a report must state its conditions.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	d, ok := bindings.Capability[bindings.ServerDescriber](t)
	if bt, isBackend := t.(*BackendTarget); isBackend {
		d, ok = bindings.Capability[bindings.ServerDescriber](bt.Backend())
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
	if v, ok := t.(Versioner); ok {
		switch s, err := v.Version(ctx); {
		case err == nil:
			server += " " + s
		case !errors.Is(err, ErrNoVersion):
			server += fmt.Sprintf(" unknown (%v)", err)
		}
	}
	return server, set
}
