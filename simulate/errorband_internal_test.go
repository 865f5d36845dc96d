package simulate

import "testing"

// TestBandOfFallsBackToAllClasses checks that a class band with too few
// measurements, or all from one source, gives way to the band of all
// classes, and that a band with enough of both is its class's own.
func TestBandOfFallsBackToAllClasses(t *testing.T) {
	all := ErrorBand{Class: "all decode", Rows: 72, Sources: 15, Median: 0.1, P90: 0.3}
	for _, tc := range []struct {
		name  string
		class ErrorBand
		want  string
	}{
		{"enough", ErrorBand{Class: "eager decode", Rows: minBandRows, Sources: minBandSources, Median: 0.2, P90: 0.4}, "eager decode"},
		{"one source", ErrorBand{Class: "eager decode", Rows: 9, Sources: minBandSources - 1, Median: 0.2, P90: 0.4}, "all decode"},
		{"too few rows", ErrorBand{Class: "eager decode", Rows: minBandRows - 1, Sources: 3, Median: 0.2, P90: 0.4}, "all decode"},
	} {
		var bands [4][2]ErrorBand
		bands[2][bandDecode], bands[3][bandDecode] = tc.class, all
		if got := bandOf(&bands, 2, bandDecode); got.Class != tc.want {
			t.Errorf("%s: bandOf = %q, want %q", tc.name, got.Class, tc.want)
		}
	}
}

// TestErrorBandsOfAnUnmeasuredArchitecture checks that a deployment on an
// architecture no fitted measurement is on gets the
// leave-one-architecture-out bands and is told so, and that one on a
// measured architecture gets its runtime class's. Every architecture of
// the catalog is measured today, so the test takes CDNA's rows away (and
// so must not run in parallel with others).
func TestErrorBandsOfAnUnmeasuredArchitecture(t *testing.T) {
	mi300x, _ := LookupGPU("mi300x")
	a100, _ := LookupGPU("a100-80gb")
	if _, decode := ErrorBands(Deployment{GPU: mi300x}); decode != errorBands[0][bandDecode] {
		t.Errorf("mi300x decode band with its rows fitted = %+v, want the vllm class's %+v", decode, errorBands[0][bandDecode])
	}
	saved := archRows
	t.Cleanup(func() { archRows = saved })
	archRows[ArchCDNA] = 0
	first, decode := ErrorBands(Deployment{GPU: mi300x})
	if first.Median != unseenArchBands[bandFirstToken].Median || decode.P90 != unseenArchBands[bandDecode].P90 {
		t.Errorf("mi300x bands = %+v, %+v; want the leave-one-architecture-out bands %+v", first, decode, unseenArchBands)
	}
	if want := "decode, no cdna device measured: architectures left out in turn"; decode.Class != want {
		t.Errorf("mi300x decode band class = %q, want %q", decode.Class, want)
	}
	if _, decode := ErrorBands(Deployment{GPU: a100}); decode != errorBands[0][bandDecode] {
		t.Errorf("a100 decode band = %+v, want the vllm class's %+v", decode, errorBands[0][bandDecode])
	}
}
