package main

import (
	"bytes"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/examples/internal/endpoint"
	"github.com/tokenpace/tokenpace/simulate"
)

// The agent runs every call whole and once: a call whose primary stream
// drops midway is restarted on the backup, and the agent, told, runs the
// backup's call only.
func TestToolAgentRestartsBrokenCalls(t *testing.T) {
	tests := []struct {
		resetEvery int
		restarted  []bool
	}{
		{0, []bool{false, false, false}},
		{2, []bool{false, true, false}},
		{1, []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("reset every %d", tt.resetEvery), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := config{primary: "llama-3.1-70b", backup: "llama-3.2-3b", resetEvery: tt.resetEvery,
					cities: []string{"Paris", "Lisbon", "Tokyo"}}
				opts, err := simOptions(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ts := simulate.StartInMemory(t, opts...)
				var out bytes.Buffer
				answers, err := run(t.Context(), &out, endpoint.Endpoint{BaseURL: ts.URL, HTTP: ts.Client, APIKey: "x"}, cfg)
				if err != nil {
					t.Fatalf("run: %v\n%s", err, out.String())
				}
				if len(answers) != len(cfg.cities) {
					t.Fatalf("%d answers, want %d", len(answers), len(cfg.cities))
				}
				for i, a := range answers {
					city := cfg.cities[i]
					if want := `{"city":"` + city + `"}`; a.call != want {
						t.Errorf("%s: call %q, want %q", city, a.call, want)
					}
					wantAttempts := "primary first won"
					if tt.restarted[i] {
						wantAttempts = "primary first failed, backup restart won"
					}
					if a.restarted != tt.restarted[i] || a.attempts != wantAttempts {
						t.Errorf("%s: restarted %v (%s), want %v (%s)", city, a.restarted, a.attempts, tt.restarted[i], wantAttempts)
					}
					if want := fmt.Sprintf("Right now it is %d °C and sunny in %s.", 14+len(city), city); a.reply != want {
						t.Errorf("%s: reply %q, want %q", city, a.reply, want)
					}
				}
			})
		})
	}
}
