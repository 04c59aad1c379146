package load

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Config is one load run.
type Config struct {
	Hosts     string
	Proto     int
	Keyspace  string
	Workload  string
	Records   int
	ValueSize int
	Threads   int
	Conns     int
	Duration  time.Duration
	Rate      float64
	SkipLoad  bool
}

// DefaultConfig is a small workload A run against 127.0.0.1:9042.
func DefaultConfig() Config {
	return Config{
		Hosts: "127.0.0.1:9042", Keyspace: "loadgen", Workload: "a", Records: 10000,
		ValueSize: 100, Threads: 8, Conns: 2, Duration: 10 * time.Second,
	}
}

// mix returns the read fraction of a workload (the rest are updates;
// workload w is inserts of fresh keys).
func mix(w string) (read float64, insert bool, err error) {
	switch strings.ToLower(w) {
	case "a":
		return 0.5, false, nil
	case "b":
		return 0.95, false, nil
	case "c":
		return 1, false, nil
	case "w":
		return 0, true, nil
	}
	return 0, false, fmt.Errorf("unknown workload %q (a, b, c, w)", w)
}

func logf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
