package proccpu

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// tick is the unit of /proc/PID/stat's times: USER_HZ, which Linux fixes at
// 100 for user space whatever the kernel's internal HZ.
const tick = 10 * time.Millisecond

// Of returns the user + system CPU time process pid has used so far.
func Of(pid int) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("proccpu: %w", err)
	}
	d, err := parse(raw)
	if err != nil {
		return 0, fmt.Errorf("proccpu: /proc/%d/stat: %w", pid, err)
	}
	return d, nil
}

// parse reads utime and stime (fields 14 and 15) from the contents of a
// /proc/PID/stat file. The command name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so fields are counted from the last
// ')'.
func parse(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name")
	}
	f := bytes.Fields(stat[i+1:])
	// f[0] is field 3 (state), so utime and stime are f[11] and f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	var total time.Duration
	for _, x := range f[11:13] {
		t, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || t < 0 {
			return 0, fmt.Errorf("bad time %q", x)
		}
		total += time.Duration(t) * tick
	}
	return total, nil
}

// MachineBusy returns the CPU time all cores of the machine have spent not
// idle since boot: the first line of /proc/stat (user, nice, system, irq,
// softirq, steal; not idle or iowait, and not guest times, which user
// already counts).
func MachineBusy() (time.Duration, error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("proccpu: %w", err)
	}
	d, err := parseMachine(raw)
	if err != nil {
		return 0, fmt.Errorf("proccpu: /proc/stat: %w", err)
	}
	return d, nil
}

// parseMachine sums the busy fields of /proc/stat's first ("cpu") line.
func parseMachine(stat []byte) (time.Duration, error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := bytes.Fields(line) // cpu user nice system idle iowait irq softirq steal guest guest_nice
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, fmt.Errorf("first line %q is not the machine's cpu line", line)
	}
	var busy time.Duration
	for i, x := range f[1:9] {
		t, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || t < 0 {
			return 0, fmt.Errorf("bad time %q", x)
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += time.Duration(t) * tick
		}
	}
	return busy, nil
}
