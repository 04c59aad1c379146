package replay

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SecretParam reports whether a URL query parameter looks like a secret
// (password, token, key...): reports must not show its value.
func SecretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"pass", "secret", "token", "key"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Machine is the computer the replay ran on (the client side: targets on
// other machines are described by their own settings).
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryMiB int64  `json:"memory_mib"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"go"`
	Hostname  string `json:"hostname,omitempty"`
}

// String is one line: "Intel Xeon ..., 2 cores, 24 GiB, Debian 12 (linux/amd64)".
func (m Machine) String() string {
	if m.CPU == "" && m.Cores == 0 {
		return "unknown (not recorded)"
	}
	return fmt.Sprintf("%s, %d cores, %.1f GiB, %s%s, %s", m.CPU, m.Cores, float64(m.MemoryMiB)/1024, m.OS,
		strings.TrimSuffix(" kernel "+m.Kernel, " kernel "), m.GoVersion)
}

// Provenance says where the replayed capture came from.
type Provenance struct {
	Nodes           []string `json:"nodes"`
	Segments        int      `json:"segments"`
	Dropped         uint64   `json:"dropped"` // records the capture lost
	RedactedValues  uint64   `json:"redacted_values"`
	RedactedQueries uint64   `json:"redacted_queries"`
	Generated       string   `json:"generated,omitempty"` // the workload generator, for dohyo workload captures
}

// CompareConditions names settings that differ between targets (a
// comparison under unequal conditions): consistency, serial consistency,
// replication, salt, compression, regions.
func CompareConditions(ts []TargetInfo) []string {
	var out []string
	keys := map[string]bool{}
	for _, t := range ts {
		for k := range t.Settings {
			keys[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !comparedSetting(k) {
			continue
		}
		vals := map[string][]string{}
		for _, t := range ts {
			v, ok := t.Settings[k]
			if !ok {
				continue // a setting that kind of target does not have
			}
			vals[v] = append(vals[v], t.Name)
		}
		if len(vals) < 2 {
			continue
		}
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(vals)) {
			parts = append(parts, fmt.Sprintf("%s on %s", v, strings.Join(vals[v], ", ")))
		}
		out = append(out, fmt.Sprintf("targets differ in %s: %s", k, strings.Join(parts, "; ")))
	}
	return out
}

func comparedSetting(k string) bool {
	for _, p := range []string{"consistency", "serial_consistency", "replication", "salt", "compression"} {
		if k == p || strings.HasPrefix(k, p+" ") {
			return true
		}
	}
	return false
}
