package tokenpace_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// Snowflake Cortex's whole answers of a Claude model, as recorded live
// (pydantic/pydantic-ai
// tests/models/cassettes/test_snowflake/test_snowflake_tool_calling.yaml):
// finish_reason "" on every choice, a tool call with an empty custom
// member beside its function, and Go's zero values for every field it
// does not fill.
const (
	snowflakeWholeCall = `{"choices":[{"finish_reason":"","index":0,"logprobs":{"content":null,"refusal":null},"message":{"annotations":null,"audio":{"data":"","expires_at":0,"id":"","transcript":""},"content":"","function_call":{"arguments":"","name":""},"refusal":"","role":"assistant","tool_calls":[{"custom":{"input":"","name":""},"function":{"arguments":"{\"city\":\"Mexico City\"}","name":"get_weather"},"id":"toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip","type":"function"}]}}],"created":1783468049,"id":"","model":"claude-sonnet-4-6","object":"chat.completion","service_tier":"","system_fingerprint":"","usage":{"completion_tokens":55,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens":568,"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":0},"total_tokens":623}}`
	snowflakeWholeText = `{"choices":[{"finish_reason":"","index":0,"logprobs":{"content":null,"refusal":null},"message":{"annotations":null,"audio":{"data":"","expires_at":0,"id":"","transcript":""},"content":"The weather in Mexico City is currently sunny with a pleasant temperature of 25°C.","function_call":{"arguments":"","name":""},"refusal":"","role":"assistant","tool_calls":null}}],"created":1783468051,"id":"","model":"claude-sonnet-4-6","object":"chat.completion","service_tier":"","system_fingerprint":"","usage":{"completion_tokens":21,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens":642,"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":0},"total_tokens":663}}`
)

// TestSnowflakeWholeAnswers: Cortex's whole answers of a Claude model,
// whose finish reason is always "", are answers through a Router that
// would send a failed one to its next route: the text, finished "stop",
// or the call whole and finished "tool_calls", the usage, one attempt.
// Before, both came with the finish reason "", and an agent loop that
// waits for "tool_calls" took the call for the turn's last answer.
func TestSnowflakeWholeAnswers(t *testing.T) {
	for name, body := range map[string]string{"call": snowflakeWholeCall, "text": snowflakeWholeText} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				first := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(body))
				})
				url, hc := serve(t, byModel(map[string]http.Handler{"claude-sonnet-4-6": first, "second": secondRoute}))
				c := tokenpace.NewClient(openaiClient(url, hc))
				r, err := tokenpace.NewRouter(c, tokenpace.Policy{Continue: true},
					tokenpace.Route{Name: "first", Model: "claude-sonnet-4-6"}, route("second"))
				if err != nil {
					t.Fatal(err)
				}
				var tm *tokenpace.Timing
				res, err := r.New(context.Background(), chat("claude-sonnet-4-6", 64), tokenpace.WithTimingInto(&tm))
				if err != nil || len(res.Choices) != 1 {
					t.Fatalf("New = %v, %v; want the answer", res, err)
				}
				m := res.Choices[0].Message
				wantFinish := "stop"
				if name == "call" {
					wantFinish = "tool_calls"
					if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "get_weather" || m.ToolCalls[0].Function.Arguments != `{"city":"Mexico City"}` {
						t.Errorf("tool calls %+v, want get_weather({\"city\":\"Mexico City\"})", m.ToolCalls)
					}
				} else if m.Content != "The weather in Mexico City is currently sunny with a pleasant temperature of 25°C." {
					t.Errorf("content %q, want the answer's", m.Content)
				}
				if f := res.Choices[0].FinishReason; f != wantFinish {
					t.Errorf("finish reason %q, want %q", f, wantFinish)
				}
				if len(tm.Attempts) != 1 || !tm.UsageReported || tm.PromptTokens == 0 {
					t.Errorf("%d attempts, usage (%v, %d); want 1 and the server's usage", len(tm.Attempts), tm.UsageReported, tm.PromptTokens)
				}
			})
		})
	}
}
