package metrics

import "testing"

// TestFitMeaningful checks the two conditions Fit.Meaningful documents:
// three requests or more, whose prompt lengths span at least 256 tokens.
func TestFitMeaningful(t *testing.T) {
	tests := []struct {
		f    Fit
		want bool
	}{
		{Fit{}, false},
		{Fit{N: 2, MinTokens: 100, MaxTokens: 5000}, false}, // two points fit any line
		{Fit{N: 3, MinTokens: 100, MaxTokens: 355}, false},
		{Fit{N: 3, MinTokens: 100, MaxTokens: 356}, true},
		{Fit{N: 50, MinTokens: 1000, MaxTokens: 1100}, false},
	}
	for _, tt := range tests {
		if got := tt.f.Meaningful(); got != tt.want {
			t.Errorf("%+v.Meaningful() = %v, want %v", tt.f, got, tt.want)
		}
	}
}
