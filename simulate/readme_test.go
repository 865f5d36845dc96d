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
