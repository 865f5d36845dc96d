package simulate_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

// TestREADMEPredictFigures checks the `predict` column of the README's
// "Measured figures" table against Predict for the load it names (Llama
// 3.1 8B, bf16, one H100 SXM: the default Deployment; 256 prompt and 128
// output tokens): predict is deterministic, so every figure there must be
// what Predict gives today, to the digits printed.
func TestREADMEPredictFigures(t *testing.T) {
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| clients | figure | `predict`") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		clients, err := strconv.Atoi(cells[0])
		if err != nil {
			t.Fatalf("README row %q: clients %q", line, cells[0])
		}
		p, err := simulate.Predict(simulate.Deployment{}, simulate.Scenario{PromptTokens: 256, OutputTokens: 128, Concurrency: clients})
		if err != nil {
			t.Fatal(err)
		}
		text, unit, _ := strings.Cut(cells[2], " ")
		decimals := 0
		if _, frac, ok := strings.Cut(text, "."); ok {
			decimals = len(frac)
		}
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		var v float64
		switch cells[1] {
		case "TTFT mean":
			v = ms(p.TTFT)
		case "TPOT mean":
			v = ms(p.TPOT)
		case "E2E mean":
			v = ms(p.E2E)
		case "output throughput":
			v = p.AggregateTPS
		default:
			t.Fatalf("README row %q: unknown figure %q", line, cells[1])
		}
		if got := strconv.FormatFloat(v, 'f', decimals, 64); got != text {
			t.Errorf("README: %d clients, %s: predict = %s %s, want Predict's %s %s", clients, cells[1], text, unit, got, unit)
		}
		rows++
	}
	if rows == 0 {
		t.Fatal("README: no row of the predict table found")
	}
}

// TestREADMEPredictArithmetic checks the figures the README's CLI section
// quotes from `tokenpace predict --model llama-3.1-70b --bits 4
// --bandwidth-gbs 1000 --tflops 165 --memory-gb 48 --mbu 1 --prompt-tokens
// 4000` against Predict for the same deployment and prompt.
func TestREADMEPredictArithmetic(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.LookupModel("llama-3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := simulate.GPUSpec{BandwidthGBs: 1000, TFLOPS: 165, MemoryGB: 48}.GPU()
	if err != nil {
		t.Fatal(err)
	}
	prec, err := simulate.CustomPrecision(4)
	if err != nil {
		t.Fatal(err)
	}
	p, err := simulate.Predict(simulate.Deployment{Model: m, GPU: g, Precision: prec, MBU: 1}, simulate.Scenario{PromptTokens: 4000})
	if err != nil {
		t.Fatal(err)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	// The README wraps its lines: compare with single spaces.
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		strconv.FormatFloat(p.DecodeStep.WeightBytes/1e9, 'f', 1, 64) + " GB of weights read per token",
		strconv.FormatFloat(p.DecodeStep.KVBytes/1e9, 'f', 2, 64) + " GB of KV cache for the prompt",
		"reads them in " + strconv.FormatFloat(ms(p.DecodeStep.Memory), 'f', 1, 64) + " ms per token",
		strconv.FormatFloat(ms(p.DecodeStep.Time), 'f', 1, 64) + " ms a step (" + strconv.FormatFloat(p.TPS, 'f', 1, 64) + " TPS)",
		"costs " + strconv.FormatFloat(p.Prefill.Seconds(), 'f', 1, 64) + " s of prefill",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README's predict example lacks %q, what Predict gives", want)
		}
	}
}

// TestREADMECustomGPUDefaults checks the defaults the README says `predict
// --model llama-3.1-70b --gpus 4 --bandwidth-gbs 3350 --tflops 989
// --fp8-tflops 1979 --memory-gb 80 --precision fp8` lists against those
// GPUSpec and DefaultsFor take for that deployment.
func TestREADMECustomGPUDefaults(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulate.LookupModel("llama-3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := simulate.GPUSpec{BandwidthGBs: 3350, TFLOPS: 989, FP8TFLOPS: 1979, MemoryGB: 80}.GPU()
	if err != nil {
		t.Fatal(err)
	}
	eff := simulate.DefaultsFor(simulate.Deployment{Model: m, GPU: g, GPUs: 4, Precision: simulate.FP8})
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		"`vector-tflops = " + strconv.FormatFloat(g.VectorTFLOPS, 'f', 1, 64) + "`",
		"`interconnect = " + strconv.FormatFloat(g.PeerLinkGBs, 'f', -1, 64) + " GB/s (nvlink-class)`",
		"`mbu = " + strconv.FormatFloat(eff.MBU, 'f', 3, 64) + "`",
		"`all-reduce-share = " + strconv.FormatFloat(eff.AllReduceShare, 'f', 3, 64) + "`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README's custom-GPU example lacks %s, the default predict takes", want)
		}
	}
}
