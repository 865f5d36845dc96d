package tokenpace_test

import (
	"testing"
	"testing/synctest"
)

// TestKServeRequestErrorUnder500 replays KServe's OpenAI endpoints with
// their Hugging Face backend refusing a prompt over the model's context:
// status 500, an error of type "OpenAIError" (kserve/kserve#3886 quotes
// the body). The caller gets the server's message as a KindRequest 400
// after one request, not three, and a Router's breaker stays closed;
// KServe's failure of its own (a model without a chat template, every
// request refused alike) is still sent again and counted.
func TestKServeRequestErrorUnder500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := loadRecording(t, "kserve-hf-context-length-500.jsonl")
		failed := refused
		failed.Reads = []recordedRead{{TMS: 4, Data: `{"error":{"message":"As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if the tokenizer does not define one.","type":"OpenAIError","param":"","code":"500"}}`}}
		wantRequestErrorsUnder500(t, "openai/v1/", []refusedUnder500{
			{"refused", refused, "maximum context length is 8192 tokens"},
		}, failed)
	})
}
