//go:build unix

package simulate_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// The online-precision measurement: N concurrent streams at a fixed TTFT
// and ITL over loopback, against a server in a child process, so that its
// CPU time (getrusage of the child) is the server's alone. Each chunk's
// arrival is compared with its schedule, send time + TTFT + k·ITL; the
// streams start 2 ms apart, and all run at once for most of the test. The
// servers: "sim" (the default Server, served with its ConnContext, so that
// its driver writes the chunks), "precise" (the same with WithPreciseTimer),
// "handler" (the default Server without ConnContext: every chunk handed to
// the request's goroutine and written through the http.ResponseWriter) and,
// as the baseline in the same run, "sleep", a server that sleeps token
// after token (relative sleeps), as common simulators do; and, on request,
// "floor", the writes alone (floorServer, Linux only).
//
//	TOKENPACE_PRECISION=1 go test -run TestOnlinePrecision -v ./simulate/
//
// TOKENPACE_PRECISION_STREAMS (default "1,256") and
// TOKENPACE_PRECISION_MODES (default "sim,precise,sleep"; "handler" and
// "floor" on request) select the runs;
// TOKENPACE_PRECISION_SERVER_PROCS sets the server's GOMAXPROCS;
// TOKENPACE_PRECISION_PROFILE=path writes its CPU profile to path.MODE.
const (
	precisionEnv = "TOKENPACE_PRECISION"
	serveEnv     = "TOKENPACE_PRECISION_SERVE" // "sim", "precise", "handler", "sleep" or "floor": be the child server
	precTTFT     = 30 * time.Millisecond
	precITL      = 30 * time.Millisecond
	precTokens   = 100
)

// TestPrecisionServer is the child process: it serves until stdin closes.
func TestPrecisionServer(t *testing.T) {
	mode := os.Getenv(serveEnv)
	if mode == "" {
		t.Skip("child process of TestOnlinePrecision")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hs := &http.Server{Handler: http.HandlerFunc(sleepingHandler)}
	switch mode {
	case "sim", "precise", "handler":
		s, err := simulate.NewServer(simulate.WithModel("m", &simulate.Fixed{TTFT: precTTFT, ITL: precITL}),
			simulate.WithPreciseTimer(mode == "precise"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		hs.Handler = s
		if mode != "handler" {
			hs.ConnContext = s.ConnContext
		}
	case "floor", "floorthread":
		f := newFloorServer(mode == "floorthread")
		hs.Handler, hs.ConnContext = f, f.connContext
	}
	go hs.Serve(l)
	fmt.Println(l.Addr())
	// "start" on stdin marks the start of the measurement; at EOF the
	// server prints the CPU time it used since then.
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	var before struct{ user, sys time.Duration }
	before.user, before.sys = cpuTime()
	if p := os.Getenv("TOKENPACE_PRECISION_PROFILE"); p != "" {
		f, _ := os.Create(p + "." + mode)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	io.Copy(io.Discard, in)
	user, sys := cpuTime()
	fmt.Println(int64(user-before.user), int64(sys-before.sys))
	pprof.StopCPUProfile()
	os.Exit(0)
}

// cpuTime returns the user and system CPU time of this process.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// sleepingHandler streams precTokens chunks, sleeping TTFT and then ITL
// before each: the relative-sleep design whose delays accumulate.
func sleepingHandler(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	f := w.(http.Flusher)
	time.Sleep(precTTFT)
	for i := range precTokens {
		if i > 0 {
			time.Sleep(precITL)
		}
		b, _ := json.Marshal(map[string]any{
			"id": "x", "object": "chat.completion.chunk", "model": "m",
			"choices": []map[string]any{{"index": 0, "delta": map[string]string{"content": " word"}}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
		f.Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	f.Flush()
}

type precisionResult struct {
	mode            string
	streams, chunks int
	p50, p99, max   time.Duration // arrival − schedule (send + TTFT + k·ITL)
	driftP99        time.Duration // arrival − (first arrival + k·ITL)
	firstP99        time.Duration // the first chunk's deviation (TTFT's), over streams
	headersP99      time.Duration // send → response headers, over streams
	cpuPerChunk     time.Duration
	sysPerChunk     time.Duration // the kernel's part of cpuPerChunk
	late            string        // the server's own lateness histogram, summarised
}

// serverLateness reads the server's send-lateness histogram and returns the
// share of writes within each bound.
func serverLateness(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	res, err := c.Get(url)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var bounds []string
	var counts []float64
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, `tokenpace_sim_send_lateness_seconds_bucket{le="`)
		if !ok {
			continue
		}
		le, n, _ := strings.Cut(rest, `"} `)
		var v float64
		fmt.Sscan(n, &v)
		bounds, counts = append(bounds, le), append(counts, v)
	}
	if len(counts) == 0 || counts[len(counts)-1] == 0 {
		return ""
	}
	var parts []string
	for i, le := range bounds[:len(bounds)-1] {
		parts = append(parts, fmt.Sprintf("≤%ss %.2f%%", le, 100*counts[i]/counts[len(counts)-1]))
	}
	return strings.Join(parts, ", ")
}

func TestOnlinePrecision(t *testing.T) {
	if os.Getenv(precisionEnv) == "" {
		t.Skipf("set %s=1 to measure (takes about 30 s)", precisionEnv)
	}
	counts, modes := []int{1, 256}, []string{"sim", "precise", "sleep"}
	if v := os.Getenv("TOKENPACE_PRECISION_STREAMS"); v != "" {
		counts = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("TOKENPACE_PRECISION_STREAMS=%q: want stream counts such as 1,256", v)
			}
			counts = append(counts, n)
		}
	}
	if v := os.Getenv("TOKENPACE_PRECISION_MODES"); v != "" {
		modes = strings.Split(v, ",")
	}
	var rows []precisionResult
	for _, streams := range counts {
		for _, mode := range modes {
			rows = append(rows, measurePrecision(t, mode, streams))
		}
	}
	t.Logf("| server | streams | chunks | p50 | p99 | max | p99 vs first chunk | first chunk p99 | headers p99 | server CPU/chunk | of which kernel |")
	for _, r := range rows {
		t.Logf("| %s | %d | %d | %v | %v | %v | %v | %v | %v | %v | %v |", r.mode, r.streams, r.chunks,
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.max.Round(10*time.Microsecond),
			r.driftP99.Round(10*time.Microsecond), r.firstP99.Round(10*time.Microsecond), r.headersP99.Round(10*time.Microsecond),
			r.cpuPerChunk, r.sysPerChunk)
	}
	for _, r := range rows {
		if r.late != "" {
			t.Logf("server-side lateness of writes, %s, %d streams: %s", r.mode, r.streams, r.late)
		}
	}
}

func measurePrecision(t *testing.T, mode string, streams int) precisionResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPrecisionServer$")
	cmd.Env = append(os.Environ(), serveEnv+"="+mode)
	if n := os.Getenv("TOKENPACE_PRECISION_SERVER_PROCS"); n != "" {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+n)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server: %v", err)
	}
	out := bufio.NewReader(stdout)
	addr, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("server address: %v", err)
	}
	base := "http://" + strings.TrimSpace(addr)
	url := base + "/v1/chat/completions"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: streams}}
	body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"hi"}]}`, precTokens)
	// Open the connections first, so the measurement is of streaming,
	// not of 256 TCP handshakes at once.
	var warm sync.WaitGroup
	for range streams {
		warm.Go(func() {
			res, err := client.Get(base + "/health")
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
	warm.Wait()
	fmt.Fprintln(stdin, "start")

	devs := make([][]time.Duration, streams)
	first := make([]time.Duration, streams)   // TTFT deviation per stream
	headers := make([]time.Duration, streams) // send → response headers per stream
	var wg sync.WaitGroup
	start := make(chan struct{})
	begin := time.Now().Add(50 * time.Millisecond)
	for i := range streams {
		wg.Go(func() {
			<-start
			// Starts spread over 512 ms, as independent clients would
			// arrive, rather than 256 requests in one instant.
			time.Sleep(time.Until(begin.Add(time.Duration(i) * 2 * time.Millisecond)))
			sent := time.Now()
			res, err := client.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				t.Errorf("stream %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			headers[i] = time.Since(sent)
			r := bufio.NewReaderSize(res.Body, 4096)
			k := 0
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					break
				}
				if !bytes.Contains(line, []byte(`"content":"`)) || bytes.Contains(line, []byte(`"content":""`)) {
					continue
				}
				now := time.Now()
				if k == 0 {
					first[i] = now.Sub(sent) - precTTFT
				}
				devs[i] = append(devs[i], now.Sub(sent.Add(precTTFT+time.Duration(k)*precITL)))
				k++
			}
		})
	}
	close(start)
	wg.Wait()
	var late string
	if mode != "sleep" && !strings.HasPrefix(mode, "floor") {
		late = serverLateness(t, client, base+"/metrics")
	}
	client.CloseIdleConnections()
	stdin.Close()
	var userNs, sysNs int64
	if _, err := fmt.Fscan(out, &userNs, &sysNs); err != nil {
		t.Fatalf("server CPU time: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
	cpu := time.Duration(userNs + sysNs)
	var all, drift []time.Duration
	for i, d := range devs {
		all = append(all, d...)
		for _, x := range d {
			drift = append(drift, x-first[i])
		}
	}
	slices.Sort(drift)
	slices.Sort(first)
	slices.Sort(headers)
	if len(all) != streams*precTokens {
		t.Fatalf("%s, %d streams: %d chunks, want %d", mode, streams, len(all), streams*precTokens)
	}
	slices.Sort(all)
	q := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	return precisionResult{
		mode: mode, streams: streams, chunks: len(all),
		p50: q(0.5), p99: q(0.99), max: all[len(all)-1],
		driftP99:    drift[int(0.99*float64(len(drift)-1))],
		firstP99:    first[int(0.99*float64(len(first)-1))],
		headersP99:  headers[int(0.99*float64(len(headers)-1))],
		cpuPerChunk: (cpu / time.Duration(len(all))).Round(100 * time.Nanosecond),
		sysPerChunk: (time.Duration(sysNs) / time.Duration(len(all))).Round(100 * time.Nanosecond),
		late:        late,
	}
}
