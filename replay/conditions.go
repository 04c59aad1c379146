package replay

import (
	"maps"
	"slices"
	"strings"
)

// FormatReplication renders a replication map briefly:
// "SimpleStrategy replication_factor=3".
func FormatReplication(m map[string]string) string {
	return formatClassMap(m, "class")
}

// FormatCompression renders a table's compression map briefly:
// "LZ4Compressor chunk_length_in_kb=16", or "off".
func FormatCompression(m map[string]string) string {
	if strings.EqualFold(m["enabled"], "false") || len(m) == 0 {
		return "off"
	}
	return formatClassMap(m, "class")
}

// formatClassMap writes the short class name, then key=value pairs sorted.
func formatClassMap(m map[string]string, classKey string) string {
	cls := m[classKey]
	if i := strings.LastIndexByte(cls, '.'); i >= 0 {
		cls = cls[i+1:]
	}
	parts := []string{cls}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != classKey {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

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
