package tokenpace_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace"
)

// TestClientNewTensorZeroThought: TensorZero's OpenAI-compatible endpoint
// answers a reasoning model with the thinking as a thought block of the
// message's tensorzero_extra_content, beside the content
// (tensorzero/tensorzero crates/tensorzero-core/src/endpoints/openai_compatible/types/chat_completions.rs).
// The caller gets it as reasoning_content, as from a stream
// (testdata/conformance/tensorzero-thought-extra-content.jsonl); before,
// the thinking was lost.
func TestClientNewTensorZeroThought(t *testing.T) {
	url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"0197f3a1-5c2e-7b40-9e1d-4a8b6c0d2e13","episode_id":"0197f3a1-5c2d-7a31-8f0c-3b7a5d9e1f24",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"content":"Budgets keep latency in check.","tool_calls":[],"role":"assistant",`+
			`"tensorzero_extra_content":[{"type":"thought","insert_index":0,"text":"Answer briefly.","signature":null,"summary_id":null,"summary_text":null}]}}],`+
			`"created":1777000000,"model":"tensorzero::model_name::qwen3-8b","system_fingerprint":"","service_tier":null,"object":"chat.completion",`+
			`"usage":{"prompt_tokens":14,"completion_tokens":9,"total_tokens":23}}`)
	}))
	c := tokenpace.NewClient(openaiClient(url, hc))
	res, err := c.New(context.Background(), chat("tensorzero::model_name::qwen3-8b", 64))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if m.Content != "Budgets keep latency in check." || m.JSON.ExtraFields["reasoning_content"].Raw() != `"Answer briefly."` {
		t.Errorf("content %q, reasoning_content %s; want %q, %q", m.Content, m.JSON.ExtraFields["reasoning_content"].Raw(), "Budgets keep latency in check.", "Answer briefly.")
	}
}

// TestTensorZeroRequestErrorUnder502: TensorZero answers a request its
// only provider refused with 400 (max_tokens past the model's context)
// with 502 and the provider's status in its message
// (testdata/conformance/tensorzero-provider-400-as-502.jsonl). The caller
// gets a KindRequest 400 with the message after one request, and a
// Router's breaker stays closed; before, openai-go sent the request three
// times and the breaker counted each refusal against a gateway that was
// well. The gateway's own failure, a provider's 500, is still sent again
// and counted.
func TestTensorZeroRequestErrorUnder502(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := loadRecording(t, "conformance/tensorzero-provider-400-as-502.jsonl")
		failed := refused
		failed.Reads = []recordedRead{{TMS: 30, Data: `{"error":{"message":"All variants failed with errors: qwen3-8b: All model providers failed to infer with errors: vllm: Error from vllm server: {\"object\":\"error\",\"message\":\"EngineCore encountered an issue.\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}"}}`}}
		wantRequestErrorsUnder500(t, "openai/v1/", []refusedUnder500{
			{"context", refused, "Error 400 Bad Request from vllm client: "},
		}, failed)
	})
}
