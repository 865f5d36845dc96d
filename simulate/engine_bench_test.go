package simulate_test

import (
	"testing"

	"github.com/tokenpace/tokenpace/simulate"
)

func benchmarkOffline(b *testing.B, n, prompt, output int) {
	w := simulate.Identical(n, simulate.Request{PromptTokens: prompt, OutputTokens: output})
	b.ReportAllocs()
	for b.Loop() {
		e, err := simulate.NewEngine(simulate.Deployment{})
		if err != nil {
			b.Fatal(err)
		}
		simulate.Run(e, w)
	}
	b.ReportMetric(float64(n*output)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkOffline256x1000 simulates 256 concurrent streams of 1000 output
// tokens each (256k emissions).
func BenchmarkOffline256x1000(b *testing.B) { benchmarkOffline(b, 256, 1000, 1000) }

// BenchmarkOffline1x1000 is the single-stream baseline.
func BenchmarkOffline1x1000(b *testing.B) { benchmarkOffline(b, 1, 1000, 1000) }

// BenchmarkOfflinePoisson2000 runs 2000 requests arriving at 20/s.
func BenchmarkOfflinePoisson2000(b *testing.B) {
	w := simulate.Poisson(2000, 20, 1, simulate.Request{PromptTokens: 1000, OutputTokens: 300})
	b.ReportAllocs()
	for b.Loop() {
		e, err := simulate.NewEngine(simulate.Deployment{})
		if err != nil {
			b.Fatal(err)
		}
		simulate.Run(e, w)
	}
}

// BenchmarkEngineOnly256x1000 is the engine without Run's per-request
// bookkeeping: the emit callback only counts.
func BenchmarkEngineOnly256x1000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e, err := simulate.NewEngine(simulate.Deployment{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 256 {
			e.Add(0, &simulate.Request{ID: uint64(i + 1), PromptTokens: 1000, OutputTokens: 1000})
		}
		n := 0
		for {
			at, ok := e.Next()
			if !ok {
				break
			}
			e.AdvanceTo(at, func(em simulate.Emission) { n += em.Tokens })
		}
		if n != 256*1000 {
			b.Fatalf("tokens = %d, want %d", n, 256*1000)
		}
	}
}
