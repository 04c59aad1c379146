package schema

import (
	"maps"
	"slices"
	"strings"
)

// FormatReplication renders a keyspace's replication map briefly:
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
