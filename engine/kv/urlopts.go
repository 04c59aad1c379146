package kv

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// URLOptions parses the query of a store's backend URL (embedded://,
// hbase://): every key must be one of known and appear once.
func URLOptions(rawQuery string, known []string) (map[string]string, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("query: %v", err)
	}
	out := make(map[string]string, len(q))
	for key, vals := range q {
		if !slices.Contains(known, key) {
			return nil, fmt.Errorf("unknown option %q (known: %s)", key, strings.Join(known, ", "))
		}
		if len(vals) != 1 {
			return nil, fmt.Errorf("option %s given %d times", key, len(vals))
		}
		out[key] = vals[0]
	}
	return out, nil
}

// ParseSalt parses a salt=N URL option: the number of salt buckets of new
// tables (Options.Salt).
func ParseSalt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 256 {
		return 0, fmt.Errorf("salt=%q: want an integer in [0, 256]", v)
	}
	return n, nil
}
