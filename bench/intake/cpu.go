package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuTime returns the CPU time, user and system, that process pid has used
// so far: from /proc, in the kernel's clock ticks of 10 ms; 0 when it
// cannot be read (pid 0: no server named).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// After the command's name in parentheses: state, then utime and stime
	// as the 12th and 13th fields.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
