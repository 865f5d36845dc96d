package metrics

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// A continued Router call has no usage of the server's for its whole
// output (UsageReported false: the cut try's tokens are counted by the
// client), but its prompt tokens are those the continuation's server
// reported. The Recorder counted them; the OTel token usage and the span
// left them out. Both now record them, as the Recorder does.
func TestContinuedCallInputTokens(t *testing.T) {
	rig := newRig(t)
	tm := stream(t, "primary", "llama-3-8b", epoch, 0, 100*time.Millisecond, 10*time.Millisecond, 8)
	tm.UsageReported, tm.PromptTokens, tm.CachedTokens, tm.OutputTokens = false, 44, 32, 8
	rig.o.Record(context.Background(), tm)
	byType := map[string]int64{}
	for _, dp := range rig.collect(t)["gen_ai.client.token.usage"].Data.(metricdata.Histogram[int64]).DataPoints {
		byType[attrsOf(dp.Attributes)["gen_ai.token.type"]] = dp.Sum
	}
	if byType["input"] != 44 || byType["output"] != 8 {
		t.Errorf("token usage by type = %v, want input 44, output 8", byType)
	}
	spans := rig.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	attrs := map[string]int64{}
	for _, kv := range spans[0].Attributes() {
		attrs[string(kv.Key)] = kv.Value.AsInt64()
	}
	if attrs["gen_ai.usage.input_tokens"] != 44 || attrs["gen_ai.usage.cache_read.input_tokens"] != 32 || attrs["gen_ai.usage.output_tokens"] != 8 {
		t.Errorf("span usage = input %d, cached %d, output %d; want 44, 32, 8",
			attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.cache_read.input_tokens"], attrs["gen_ai.usage.output_tokens"])
	}
}
