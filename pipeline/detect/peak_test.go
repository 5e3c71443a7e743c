package detect_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peakMemory follows the memory a benchmark's loop takes: the Go heap in
// use, sampled every millisecond, and the process's peak resident size
// (Linux; it counts SQLite's own memory too). Start it just before the loop
// and call report right after it.
type peakMemory struct {
	stop chan struct{}
	done chan uint64
}

// heapInUse is what runtime.MemStats calls HeapInuse, read without
// stopping the world.
var heapInUse = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}

func startPeakMemory() *peakMemory {
	runtime.GC()
	debug.FreeOSMemory()
	// Writing 5 to clear_refs starts VmHWM again from the present size.
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	p := &peakMemory{stop: make(chan struct{}), done: make(chan uint64, 1)}
	go func() {
		samples := make([]metrics.Sample, len(heapInUse))
		for i, name := range heapInUse {
			samples[i].Name = name
		}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var peak uint64
		// At most ten minutes of samples, however long the loop runs.
		for range 600_000 {
			metrics.Read(samples)
			peak = max(peak, samples[0].Value.Uint64()+samples[1].Value.Uint64())
			select {
			case <-p.stop:
				p.done <- peak
				return
			case <-tick.C:
			}
		}
		p.done <- peak
	}()
	return p
}

// report stops the sampling and reports the peaks in MiB.
func (p *peakMemory) report(b *testing.B) {
	close(p.stop)
	b.ReportMetric(float64(<-p.done)/(1<<20), "peak-heap-MiB")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// peakRSS reads VmHWM of this process, in bytes; 0 when it cannot.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
