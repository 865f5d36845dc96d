package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// KoboldCpp 1.76 (October 2024), recorded live serving a random-weight
// model of TinyLlama's tokenizer family: testdata/koboldcpp-176-*.

// TestKoboldCppPlaceholderUsage: KoboldCpp's builds of 2024 wrote the same
// usage, 100 prompt and 100 completion tokens, into every whole answer,
// under the ids "chatcmpl-A1" and "cmpl-A1" (recorded: a 40-token answer to
// a 12-token prompt; a 12-token one). Timing took it as counted: TPOT,
// TPS and the prompt's size came from made-up numbers. The caller now gets
// no usage, in Timing and in its response, and the answer as sent.
func TestKoboldCppPlaceholderUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{
			"chat": replay(loadRecording(t, "koboldcpp-176-chat-nostream.jsonl")),
			"comp": replay(loadRecording(t, "koboldcpp-176-completions-nostream.jsonl")),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))

		var tm *tokenpace.Timing
		res, err := c.New(context.Background(), openai.ChatCompletionNewParams{Model: "chat", MaxTokens: openai.Int(40),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a long story about a dog.")}},
			tokenpace.WithTimingInto(&tm))
		if err != nil || len(res.Choices) != 1 || res.Choices[0].FinishReason != "length" ||
			res.Choices[0].Message.Content != "\ton sa ca wha mucParisolitt abou muc tabe ci haFr cap E\x1d sto ha\tfrolittlonu/old EZ\x1d\t\x1d4" {
			t.Fatalf("chat: %+v, %v; want the answer as sent", res, err)
		}
		if res.Usage.PromptTokens != 0 || res.Usage.CompletionTokens != 0 || res.JSON.Usage.Valid() {
			t.Errorf("chat: the response's usage %+v, want none", res.Usage)
		}
		if tm.UsageReported || tm.PromptTokens != 0 || tm.OutputTokens == 100 {
			t.Errorf("chat: Timing's usage (%v, %d, %d), want not reported, no 100", tm.UsageReported, tm.PromptTokens, tm.OutputTokens)
		}

		comp, err := c.NewCompletion(context.Background(), openai.CompletionNewParams{Model: "comp", MaxTokens: openai.Int(12),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("The capital of France is")}},
			tokenpace.WithTimingInto(&tm))
		if err != nil || len(comp.Choices) != 1 || comp.Choices[0].Text != "Ntake,N? get E\x1d`Xafter wha" || comp.Choices[0].FinishReason != "length" {
			t.Fatalf("completion: %+v, %v; want the answer as sent", comp, err)
		}
		if comp.Usage.PromptTokens != 0 || comp.Usage.TotalTokens != 0 || tm.UsageReported || tm.PromptTokens != 0 {
			t.Errorf("completion: usage %+v, Timing (%v, %d); want none", comp.Usage, tm.UsageReported, tm.PromptTokens)
		}
	})
}

// TestKoboldCppPlaceholderUsageRelayed: CLIProxyAPI in front of KoboldCpp
// 1.76 makes a response of its chat answer, the placeholder usage and id
// with it (recorded live): no usage there either, in Timing and in the
// response.
func TestKoboldCppPlaceholderUsageRelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(loadRecording(t, "cliproxyapi-koboldcpp-responses-nostream.jsonl")))
		c := tokenpace.NewClient(openaiClient(url, hc))
		var tm *tokenpace.Timing
		res, err := c.NewResponse(context.Background(), responses.ResponseNewParams{Model: "kobold", MaxOutputTokens: openai.Int(30),
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Tell me a long story about a dog.")}}, tokenpace.WithTimingInto(&tm))
		if err != nil || res.OutputText() != "1 no caN ca hello on`astwohas=la/=\tFrN weI helversuZ" {
			t.Fatalf("%v, %v; want the answer as sent", res, err)
		}
		if res.Usage.InputTokens != 0 || res.Usage.OutputTokens != 0 || res.JSON.Usage.Valid() || tm.UsageReported || tm.PromptTokens != 0 {
			t.Errorf("usage %+v, Timing (%v, %d); want none", res.Usage, tm.UsageReported, tm.PromptTokens)
		}
	})
}

// TestKoboldCppRealUsageKept: a count that is not the placeholder, or the
// placeholder's numbers under another id, is the server's word.
func TestKoboldCppRealUsageKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		counted := loadRecording(t, "koboldcpp-176-chat-nostream.jsonl")
		counted.Reads[0].Data = replaceOnce(t, counted.Reads[0].Data, `"prompt_tokens": 100, "completion_tokens": 100, "total_tokens": 200`,
			`"prompt_tokens": 23, "completion_tokens": 40, "total_tokens": 63`)
		other := loadRecording(t, "koboldcpp-176-chat-nostream.jsonl")
		other.Reads[0].Data = replaceOnce(t, other.Reads[0].Data, `"chatcmpl-A1"`, `"chatcmpl-7f3a"`)
		url, hc := serve(t, byModel(map[string]http.Handler{"counted": replay(counted), "other": replay(other)}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for model, want := range map[string][2]int{"counted": {23, 40}, "other": {100, 100}} {
			var tm *tokenpace.Timing
			res, err := c.New(context.Background(), openai.ChatCompletionNewParams{Model: model, MaxTokens: openai.Int(100),
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a long story about a dog.")}},
				tokenpace.WithTimingInto(&tm))
			if err != nil || res.Usage.PromptTokens != int64(want[0]) || !tm.UsageReported || tm.PromptTokens != want[0] || tm.OutputTokens != want[1] {
				t.Errorf("%s: usage %+v, Timing (%v, %d, %d), %v; want %v reported", model, res.Usage, tm.UsageReported, tm.PromptTokens, tm.OutputTokens, err, want)
			}
		}
	})
}

// TestKoboldCppNullResponse: KoboldCpp answers a whole request it failed
// on (a completions prompt given as an array, recorded) with status 200
// and the body null, which openai-go decodes into a nil response and a nil
// error. tokenpace read the response then and panicked, reporting its own
// panic as the caller's middleware's. The caller now gets a
// KindMalformed error, for completions, chat and Responses alike.
func TestKoboldCppNullResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		null := replay(loadRecording(t, "koboldcpp-176-completions-null.jsonl"))
		url, hc := serve(t, null)
		c := tokenpace.NewClient(openaiClient(url, hc))
		ctx := context.Background()
		for api, call := range map[string]func() (any, error){
			"completions": func() (any, error) {
				return c.NewCompletion(ctx, openai.CompletionNewParams{Model: "tiny", MaxTokens: openai.Int(12),
					Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"a", "b"}}})
			},
			"chat": func() (any, error) {
				return c.New(ctx, openai.ChatCompletionNewParams{Model: "tiny",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			},
			"responses": func() (any, error) {
				return c.NewResponse(ctx, responses.ResponseNewParams{Model: "tiny",
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
			},
		} {
			res, err := call()
			var se *tokenpace.StreamError
			if !errors.As(err, &se) || se.Kind != tokenpace.KindMalformed {
				t.Errorf("%s: %v, %v; want a KindMalformed error", api, res, err)
			}
		}
	})
}

// TestKoboldCppStreamEnd: KoboldCpp ends its streams with "data: [DONE]"
// and no line break, which the event-stream format would drop. It ignores
// n: asked for two choices, it streams one (recorded). The caller was told
// the stream had no [DONE], a truncation; it is now told that the server
// ignored n, with the text of the one choice kept.
func TestKoboldCppStreamEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, replay(loadRecording(t, "koboldcpp-176-chat-n2-stream.jsonl")))
		c := tokenpace.NewClient(openaiClient(url, hc))
		s := c.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "tiny", MaxTokens: openai.Int(40), N: openai.Int(2),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me a long story about a dog.")}},
			option.WithMaxRetries(0))
		for s.Next() {
		}
		_ = s.Close()
		var se *tokenpace.StreamError
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || se.Detail != "n_ignored" {
			t.Errorf("err %v, want KindRequest \"n_ignored\"", s.Err())
		}
		if want := " on work] we=well/on must would here4 } water bee ha ta % intkno=N nFr\tZwell capit stover nlitt two 3"; s.Text() != want {
			t.Errorf("text %q, want %q", s.Text(), want)
		}
	})
}

// replaceOnce returns s with its one old replaced by new.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q is not once in the recording", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestKoboldCppFillInTheMiddle: KoboldCpp reads no suffix (and no echo):
// a fill-in-the-middle request got a completion of its prompt alone, as
// if no code followed the cursor, with a nil error (recorded, streamed
// and not). The caller now gets a KindRequest refusal naming KoboldCpp
// and the field, after one request, and no text made without it: told by
// the Server header, or behind a relay that drops it by the answer's own
// shape.
func TestKoboldCppFillInTheMiddle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stream := loadRecording(t, "koboldcpp-176-completions-suffix-stream.jsonl")
		whole := loadRecording(t, "koboldcpp-176-completions-suffix-nostream.jsonl")
		for _, relayed := range []bool{false, true} {
			s, w := stream, whole
			if relayed {
				s.Headers, w.Headers = withoutServer(s.Headers), withoutServer(w.Headers)
			}
			c, counts := serveFIM(t, s, w)
			ctx := context.Background()
			req := fim("tiny", "func add(a, b int) int {\n\treturn ", "\n}\n")
			checkRefusedByName(t, c, req, "KoboldCpp ignores suffix", fmt.Sprintf("relayed %v", relayed))
			if n := counts.of("/v1/completions"); n != 2 || counts.of("/infill") != 0 {
				t.Errorf("relayed %v: requests %v; want 2 to /v1/completions, none sent again, none to /infill", relayed, counts)
			}
			if relayed {
				continue
			}
			echo := req
			echo.Suffix, echo.Echo = openai.String(""), openai.Bool(true)
			_, err := c.NewCompletion(ctx, echo)
			var se *tokenpace.StreamError
			if !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(err.Error(), "KoboldCpp ignores echo") {
				t.Errorf("echo: err %v; want a KindRequest refusal naming KoboldCpp and echo", err)
			}
		}
	})
}

// withoutServer returns h without its Server header, as a relay passes
// an answer on.
func withoutServer(h map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if !strings.EqualFold(k, "Server") {
			out[k] = v
		}
	}
	return out
}
