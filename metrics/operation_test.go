package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/tokenpace/tokenpace"
)

// Each call carries the gen_ai.operation.name of its API, on its metrics
// and in its span's name and attributes.
func TestOTelOperationName(t *testing.T) {
	tests := []struct {
		api  tokenpace.API
		want string
	}{
		{tokenpace.APIChat, "chat"},
		{tokenpace.APICompletions, "text_completion"},
		{tokenpace.APIResponses, "chat"},
	}
	for _, tt := range tests {
		t.Run(string(tt.api), func(t *testing.T) {
			rig := newRig(t)
			tm := stream(t, "primary", "m", epoch, 0, 300*time.Millisecond, 20*time.Millisecond, 3)
			tm.API = tt.api
			rig.o.Record(context.Background(), tm)
			dps := hist(t, rig.collect(t), "gen_ai.client.operation.duration", "s")
			if len(dps) != 1 {
				t.Fatalf("%d data points, want 1", len(dps))
			}
			if got := attrsOf(dps[0].Attributes)["gen_ai.operation.name"]; got != tt.want {
				t.Errorf("metric gen_ai.operation.name = %q, want %q", got, tt.want)
			}
			spans := rig.spans.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			if got, want := spans[0].Name(), tt.want+" m"; got != want {
				t.Errorf("span name = %q, want %q", got, want)
			}
			for _, kv := range spans[0].Attributes() {
				if kv.Key == "gen_ai.operation.name" && kv.Value.AsString() != tt.want {
					t.Errorf("span gen_ai.operation.name = %q, want %q", kv.Value.AsString(), tt.want)
				}
			}
		})
	}
}
