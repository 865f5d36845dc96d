package simulate_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestServeInMemoryServesUntilClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sim, err := simulate.ServeInMemory(simulate.WithModel("m", &simulate.Fixed{TTFT: time.Second}))
		if err != nil {
			t.Fatalf("ServeInMemory: %v", err)
		}
		if got, want := sim.BaseURL(), "http://simulator.invalid/v1/"; got != want {
			t.Errorf("BaseURL() = %q, want %q", got, want)
		}
		resp, err := sim.Client().Get(sim.BaseURL() + "models")
		if err != nil {
			t.Fatalf("GET models: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"m"`) {
			t.Errorf("GET models = %d %q (%v), want 200 listing \"m\"", resp.StatusCode, body, err)
		}
		if err := sim.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
		if err := sim.Close(); err != nil {
			t.Errorf("second Close() = %v, want nil", err)
		}
		if _, err := sim.Client().Get(sim.BaseURL() + "models"); err == nil {
			t.Errorf("GET models after Close succeeded, want an error")
		}
	})
}

func TestServeInMemoryRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts []simulate.Option
	}{
		{"negative RTT", []simulate.Option{simulate.WithRTT(-time.Second)}},
		{"nil scheduler", []simulate.Option{simulate.WithModel("m", nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim, err := simulate.ServeInMemory(tt.opts...)
			if err == nil || sim != nil || !strings.HasPrefix(err.Error(), "simulate: ") {
				t.Errorf("ServeInMemory(%s) = %v, %v, want nil and a simulate: error", tt.name, sim, err)
			}
		})
	}
}
