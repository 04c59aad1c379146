package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/replay"
)

// describeMachine names the machine the replay runs on: CPU model, cores
// and memory from /proc, the OS from /etc/os-release, and the Go runtime.
// What cannot be read is "unknown", never left out.
func describeMachine() replay.Machine {
	m := replay.Machine{CPU: "unknown", Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version()}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		kb, _ := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
		m.MemoryMiB = kb / 1024
	}
	if v := procField("/etc/os-release", "PRETTY_NAME"); v != "" {
		m.OS = strings.Trim(v, `"`) + " (" + m.OS + ")"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.Hostname, _ = os.Hostname()
	return m
}

// procField is the value of the first "key: value" or "key=value" line.
func procField(path, key string) string {
	fh, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// generatedBy names the generator of a `dohyo workload` capture (its node
// name says so), "" for a real capture.
func generatedBy(nodes []string) string {
	var ws []string
	for _, n := range nodes {
		if w, ok := strings.CutPrefix(n, "workload-"); ok {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return ""
	}
	return "dohyo workload " + strings.Join(ws, ", ")
}
