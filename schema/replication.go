package schema

import (
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

const (
	locatorPackage  = "org.apache.cassandra.locator."
	simpleStrategy  = locatorPackage + "SimpleStrategy"
	ntsStrategy     = locatorPackage + "NetworkTopologyStrategy"
	localStrategy   = locatorPackage + "LocalStrategy"
	oldNTSStrategy  = locatorPackage + "OldNetworkTopologyStrategy"
	replicationOpt  = "replication"
	durableWritesOp = "durable_writes"
)

var keyspaceKeywords = map[string]bool{replicationOpt: true, durableWritesOp: true}

// keyspaceAttrs are the parsed WITH options of CREATE/ALTER KEYSPACE.
type keyspaceAttrs struct {
	replication map[string]string // nil when absent
	durable     *bool
}

// keyspaceProperties reads the options of a keyspace statement. Options is
// authoritative when present; hand-built ASTs may set only the typed fields.
func keyspaceProperties(opts []cql.Option, repl map[string]string, durable *bool) (*keyspaceAttrs, *Error) {
	if len(opts) == 0 {
		a := &keyspaceAttrs{replication: repl, durable: durable}
		if repl != nil {
			if _, ok := repl["class"]; !ok {
				return nil, configf("Missing replication strategy class")
			}
		}
		return a, nil
	}
	p, err := parseProperties(opts)
	if err != nil {
		return nil, err
	}
	if err := p.validate(keyspaceKeywords); err != nil {
		return nil, err
	}
	a := &keyspaceAttrs{}
	if p.has(replicationOpt) {
		if a.replication, err = p.mapVal(replicationOpt); err != nil {
			return nil, err
		}
		if _, ok := a.replication["class"]; len(a.replication) > 0 && !ok {
			return nil, configf("Missing replication strategy class")
		}
	}
	if p.has(durableWritesOp) {
		b, err := p.boolean(durableWritesOp)
		if err != nil {
			return nil, err
		}
		a.durable = &b
	}
	return a, nil
}

// strategyClass resolves a replication class name as
// AbstractReplicationStrategy.getClass does.
func strategyClass(name string) (string, *Error) {
	full := name
	if !strings.Contains(name, ".") {
		full = locatorPackage + name
	}
	switch full {
	case simpleStrategy, ntsStrategy, localStrategy:
		return full, nil
	case oldNTSStrategy:
		return "", configf("The support for the OldNetworkTopologyStrategy has been removed in C* version 4.0. " +
			"The keyspace strategy should be switch to NetworkTopologyStrategy")
	}
	return "", configf("Unable to find replication strategy class '%s'", full)
}

// buildReplication turns the statement's replication map into the stored
// one (full class name plus options), filling defaults as Cassandra 5.0's
// prepareOptions do, and validates it. prev is the current replication for
// ALTER (nil for CREATE).
func buildReplication(o *Options, ks string, m, prev map[string]string) (map[string]string, *Error) {
	if len(m) == 0 {
		return nil, configf("Missing replication strategy class")
	}
	opts := maps.Clone(m)
	class, err := strategyClass(opts["class"])
	if err != nil {
		return nil, err
	}
	delete(opts, "class")
	prevOpts := maps.Clone(prev)
	delete(prevOpts, "class")
	defaultRF := strconv.Itoa(o.defaultRF())
	switch class {
	case simpleStrategy:
		if _, ok := opts["replication_factor"]; !ok {
			rf, ok := prevOpts["replication_factor"]
			if !ok {
				rf = defaultRF
			}
			opts["replication_factor"] = rf
		}
	case ntsStrategy:
		if len(opts) == 0 {
			rf, ok := prevOpts["replication_factor"]
			if !ok {
				rf = defaultRF
			}
			opts["replication_factor"] = rf
		}
		rf, hasRF := opts["replication_factor"]
		delete(opts, "replication_factor")
		if hasRF {
			// Auto-expansion keeps the datacenters an ALTER already has.
			for dc, v := range prevOpts {
				if dc != "replication_factor" {
					if _, ok := opts[dc]; !ok {
						opts[dc] = v
					}
				}
			}
			for _, dc := range o.datacenters() {
				if _, ok := opts[dc]; !ok {
					opts[dc] = rf
				}
			}
		}
		for dc, v := range opts {
			if v == "0" {
				delete(opts, dc)
			}
		}
	case localStrategy:
		return nil, invalidf("Unable to use given strategy class: LocalStrategy is reserved for internal use.")
	}
	if err := validateReplication(ks, class, opts); err != nil {
		return nil, err
	}
	opts["class"] = class
	return opts, nil
}

func validateReplication(ks, class string, opts map[string]string) *Error {
	switch class {
	case simpleStrategy:
		for k := range opts {
			if k != "replication_factor" {
				return configf("Unrecognized strategy option {%s} passed to SimpleStrategy for keyspace %s. "+
					"Expected options: [replication_factor]", k, ks)
			}
		}
		rf, ok := opts["replication_factor"]
		if !ok {
			return configf("SimpleStrategy requires a replication_factor strategy option.")
		}
		return validateRF(rf)
	case ntsStrategy:
		if len(opts) == 0 {
			return configf("Configuration for at least one datacenter must be present")
		}
		dcs := make([]string, 0, len(opts))
		for dc := range opts {
			dcs = append(dcs, dc)
		}
		sort.Strings(dcs)
		for _, dc := range dcs {
			if strings.EqualFold(dc, "replication_factor") {
				return configf("replication_factor should not appear as an option to NetworkTopologyStrategy")
			}
			if err := validateRF(opts[dc]); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateRF checks one replication factor as ReplicationFactor.fromString.
func validateRF(s string) *Error {
	if strings.Contains(s, "/") {
		return configf("Transient replication is disabled. Enable in cassandra.yaml to use.")
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return configf("For input string: \"%s\"", s)
	}
	if n < 0 {
		return configf("Replication factor must be non-negative, found %s", s)
	}
	return nil
}

// ReplicationFactor returns the keyspace's total number of replicas: the
// replication_factor of SimpleStrategy, or the sum over datacenters of
// NetworkTopologyStrategy. It is 0 when unknown.
func (k *Keyspace) ReplicationFactor() int {
	total := 0
	for key, v := range k.Replication {
		if key == "class" {
			continue
		}
		if full, _, ok := strings.Cut(v, "/"); ok {
			v = full
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			continue
		}
		if key == "replication_factor" {
			return n
		}
		total += n
	}
	return total
}
