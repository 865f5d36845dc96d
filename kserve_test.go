package tokenpace_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
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
		answer := loadRecording(t, "llamacpp-110m-chat-stream.jsonl")
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/refused/"):
				replay(refused)(w, r)
			case strings.HasPrefix(r.URL.Path, "/failed/"):
				replay(failed)(w, r)
			default:
				replay(answer)(w, r)
			}
		})
		base := func(name string) option.RequestOption {
			return option.WithBaseURL("http://" + name + ".invalid/" + name + "/openai/v1/")
		}
		client := func(name string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(base(name), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2))) // openai-go's default
		}
		ctx := context.Background()
		path := func(name string) string { return "/" + name + "/openai/v1/chat/completions" }

		s := client("refused").NewStreaming(ctx, chat("llama3", 4))
		text := readAll(t, s)
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest ||
			!strings.Contains(ae.Message, "maximum context length is 8192 tokens") || text != "" || counts.of(path("refused")) != 1 {
			t.Errorf("text %q, err %v, %d requests; want KServe's message as a KindRequest 400, sent once", text, s.Err(), counts.of(path("refused")))
		}

		rt, err := tokenpace.NewRouter(client("refused"), tokenpace.Policy{},
			tokenpace.Route{Name: "refused"}, tokenpace.Route{Name: "ok", Options: []option.RequestOption{base("ok")}})
		if err != nil {
			t.Fatal(err)
		}
		want := recordedText(t, answer)
		for i := range 12 { // more than the 5 failures that open a breaker
			s := rt.NewStreaming(ctx, chat("llama3", 4))
			if text := readAll(t, s); s.Err() != nil || text != want || len(s.Timing().Attempts) != 2 {
				t.Fatalf("Router call %d: text %q, err %v, %d attempts; want the next route's answer after the refusal", i, text, s.Err(), len(s.Timing().Attempts))
			}
		}
		if st, ok := rt.BreakerState("refused"); !ok || st != gobreaker.StateClosed {
			t.Errorf("breaker %v after 12 request errors, want closed", st)
		}

		// KServe's own failure: sent again, and counted.
		s = client("failed").NewStreaming(ctx, chat("llama3", 4))
		if readAll(t, s); !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusInternalServerError || counts.of(path("failed")) != 3 {
			t.Errorf("server failure: err %v, %d requests; want its 500 after 3", s.Err(), counts.of(path("failed")))
		}
	})
}
