//go:build !linux

package replay

import "time"

// sleepThread sleeps d; outside Linux the runtime's timers are used.
func sleepThread(d time.Duration) { time.Sleep(d) }
