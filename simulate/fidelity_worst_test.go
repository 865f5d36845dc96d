package simulate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// worstShown is how many rows of each kind worstRows lists.
const worstShown = 15

// worstRows lists, for first-token and then decode rows among the single
// measurements, the worstShown rows of largest |error| with their signed
// error and what sets their cost: engine, device and count, prompt
// length, batch (concurrency), quantization and runtime class. A positive
// error is a figure over the measured one (a time too long, a rate too
// high).
func worstRows(title string, rows []fidelityRow, errs []float64) string {
	var b strings.Builder
	for _, kind := range []int{bandFirstToken, bandDecode} {
		var idx []int
		for i, r := range rows {
			if r.Curve == "" && bandKind(Metric(r.Metric)) == kind {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			return cmp.Compare(math.Abs(errs[j]), math.Abs(errs[i]))
		})
		name := "first token"
		if kind == bandDecode {
			name = "decode"
		}
		fmt.Fprintf(&b, "%s, worst %s rows (error, engine, device, prompt, batch, quantization, runtime):\n", title, name)
		for _, i := range idx[:min(worstShown, len(idx))] {
			fmt.Fprintf(&b, "  %+7.1f%%  %s\n", 100*errs[i], rows[i].setting())
		}
	}
	return b.String()
}

// setting is what sets the row's cost, on one line, then its name.
func (r fidelityRow) setting() string {
	quant := r.Precision
	if r.Bits > 0 {
		quant = fmt.Sprintf("%g bits", r.Bits)
	}
	runtime := r.Runtime
	if runtime == "" {
		runtime = "auto"
	}
	return fmt.Sprintf("%-14s %s x%d  prompt %d  batch %d  %s  %s | %s",
		r.Engine, r.GPU, max(r.GPUs, 1), r.PromptTokens, max(r.Concurrency, 1), quant, runtime, r.Name)
}

func TestWorstRowsOrdersByMagnitudeWithSign(t *testing.T) {
	rows := []fidelityRow{
		{Name: "a", Metric: string(MetricTTFT), Engine: "vllm", GPU: "h100-sxm", PromptTokens: 128},
		{Name: "b", Metric: string(MetricTTFT), Engine: "vllm", GPU: "h100-sxm", PromptTokens: 4096, Bits: 4.5},
		{Name: "c", Metric: string(MetricDecodeTPS), Engine: "llama.cpp", GPU: "rtx-4090", Precision: "q4_k_m", Runtime: "llama.cpp"},
		{Name: "curve", Metric: string(MetricTTFT), Curve: "x"},
	}
	got := worstRows("LOSO", rows, []float64{0.10, -0.40, 0.05, 9})
	want := "LOSO, worst first token rows (error, engine, device, prompt, batch, quantization, runtime):\n" +
		"    -40.0%  vllm           h100-sxm x1  prompt 4096  batch 1  4.5 bits  auto | b\n" +
		"    +10.0%  vllm           h100-sxm x1  prompt 128  batch 1    auto | a\n" +
		"LOSO, worst decode rows (error, engine, device, prompt, batch, quantization, runtime):\n" +
		"     +5.0%  llama.cpp      rtx-4090 x1  prompt 0  batch 1  q4_k_m  llama.cpp | c\n"
	if got != want {
		t.Errorf("worstRows = %q, want %q", got, want)
	}
}
