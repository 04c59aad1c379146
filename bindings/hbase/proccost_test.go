package hbase

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// processCost is a snapshot of this process's read and write system calls
// (/proc/self/io syscr and syscw, summed over its threads) and CPU time.
type processCost struct {
	syscr, syscw int64
	cpu          time.Duration
	ok           bool
}

// readProcessCost snapshots the counters; where /proc/self/io is not
// readable (not Linux) the benchmark reports no system calls.
func readProcessCost(b *testing.B) processCost {
	b.Helper()
	var c processCost
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	c.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		name, value, found := bytes.Cut(sc.Bytes(), []byte(": "))
		if !found {
			continue
		}
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil {
			b.Fatalf("/proc/self/io %s: %v", name, err)
		}
		switch string(name) {
		case "syscr":
			c.syscr, c.ok = n, true
		case "syscw":
			c.syscw = n
		}
	}
	return c
}

// report adds the system calls and CPU time per operation since c.
func (c processCost) report(b *testing.B) {
	b.Helper()
	now := readProcessCost(b)
	n := float64(b.N)
	b.ReportMetric(float64((now.cpu-c.cpu).Microseconds())/n, "cpu-µs/op")
	if c.ok && now.ok {
		b.ReportMetric(float64(now.syscr-c.syscr)/n, "syscr/op")
		b.ReportMetric(float64(now.syscw-c.syscw)/n, "syscw/op")
	}
}
