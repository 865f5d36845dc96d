package tokenpace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/sony/gobreaker/v2"

	"github.com/tokenpace/tokenpace"
)

// TestLlamaCppFillInTheMiddle replays what llama.cpp's server (a build of
// August 2026, recorded live) answers to fill-in-the-middle: on
// /v1/completions, 200 and a completion of the prompt alone, its suffix
// dropped; on /infill, the right answer in llama.cpp's own format. The
// caller gets /infill's answer as a completion, stream or not, with its
// finish reason and usage; later calls go to /infill at once. An echo,
// which no endpoint of that server does, is refused with the field
// named; a model without fill-in-the-middle tokens (501 from /infill)
// fails, and a Router falls back to a route that keeps the suffix.
func TestLlamaCppFillInTheMiddle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dropped := loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl")
		droppedWhole := loadRecording(t, "llamacpp-2026-completions-suffix-nostream.jsonl")
		infill := loadRecording(t, "llamacpp-2026-infill-stream.jsonl")
		infillWhole := loadRecording(t, "llamacpp-2026-infill-nostream.jsonl")
		noFIM := recording{Status: http.StatusNotImplemented, HeadersMS: 1, Headers: map[string]string{"content-type": "application/json", "server": "llama.cpp"},
			Reads: []recordedRead{{TMS: 1, Data: `{"error":{"code":501,"message":"Infill is not supported by this model: prefix token is missing. suffix token is missing. middle token is missing. ","type":"not_supported_error"}}`}}}
		keeps := dropped // a server that does fill-in-the-middle itself
		keeps.Headers = map[string]string{"content-type": dropped.Headers["content-type"]}
		url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			stream := strings.Contains(string(body), `"stream":true`)
			switch {
			case strings.HasPrefix(r.URL.Path, "/keeps/"):
				replay(keeps)(w, r)
			case r.URL.Path == "/nofim/infill":
				replay(noFIM)(w, r)
			case strings.HasSuffix(r.URL.Path, "/infill") && stream:
				replay(infill)(w, r)
			case strings.HasSuffix(r.URL.Path, "/infill"):
				replay(infillWhole)(w, r)
			case stream:
				replay(dropped)(w, r)
			default:
				replay(droppedWhole)(w, r)
			}
		})
		c := tokenpace.NewClient(openaiClient(url, hc), tokenpace.WithName("llama"))
		ctx := context.Background()
		want, wantEvents := infillContent(t, infill)

		s := c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		text, _ := readCompletion(s, s.Timing().Start)
		tm := s.Timing()
		if s.Err() != nil || text != want || s.Text() != want {
			t.Fatalf("fill-in-the-middle stream: text %q, err %v; want /infill's %q", text, s.Err(), want)
		}
		if len(tm.Chunks) != wantEvents || tm.FinishReason != "length" || !tm.UsageReported || tm.PromptTokens != 13 || tm.OutputTokens != 8 {
			t.Errorf("fill-in-the-middle stream: %d chunks, finish %q, usage %v %d/%d; want %d, length, 13 prompt and 8 output tokens",
				len(tm.Chunks), tm.FinishReason, tm.UsageReported, tm.PromptTokens, tm.OutputTokens, wantEvents)
		}
		if len(tm.HTTP) != 2 || counts.of("/v1/completions") != 1 || counts.of("/infill") != 1 {
			t.Errorf("fill-in-the-middle stream: %d HTTP tries, %v; want 2: /v1/completions, then /infill", len(tm.HTTP), counts)
		}

		// The server is known now: straight to /infill.
		s = c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != want || len(s.Timing().HTTP) != 1 || counts.of("/v1/completions") != 1 {
			t.Errorf("second fill-in-the-middle stream: text %q, err %v, %d HTTP tries, %v; want /infill's text at once", text, s.Err(), len(s.Timing().HTTP), counts)
		}
		// What is learnt is the model's too: a gateway may serve others.
		s = c.NewCompletionStreaming(ctx, fim("other", "def f(x):\n", "\n    return x\n"))
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != want || len(s.Timing().HTTP) != 2 || counts.of("/v1/completions") != 2 {
			t.Errorf("fill-in-the-middle of another model: text %q, err %v, %d HTTP tries, %v; want /infill's text after a try of /v1/completions", text, s.Err(), len(s.Timing().HTTP), counts)
		}
		r, err := c.NewCompletion(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		if err != nil || len(r.Choices) != 1 || r.Choices[0].Text != want || r.Choices[0].FinishReason != "length" || r.Usage.PromptTokens != 13 || r.Usage.CompletionTokens != 8 {
			t.Errorf("fill-in-the-middle, not streamed: %+v, %v; want /infill's %q, length, 13 + 8 tokens", r, err, want)
		}

		// Echo: no endpoint of the server does it.
		echo := fim("m", "def f(x):\n", "")
		echo.Echo = openai.Bool(true)
		s = c.NewCompletionStreaming(ctx, echo)
		text, _ = readCompletion(s, s.Timing().Start)
		var se *tokenpace.StreamError
		var ae *openai.Error
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(se.Detail, "echo") ||
			!errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest || text != "" {
			t.Errorf("echo: text %q, err %v; want none and a KindRequest 400 naming echo", text, s.Err())
		}

		// A model without fill-in-the-middle tokens: a Router falls back.
		rt, err := tokenpace.NewRouter(c, tokenpace.Policy{},
			tokenpace.Route{Name: "nofim", Options: []option.RequestOption{option.WithBaseURL("http://replay.invalid/nofim/v1/")}},
			tokenpace.Route{Name: "keeps", Options: []option.RequestOption{option.WithBaseURL("http://replay.invalid/keeps/v1/")}})
		if err != nil {
			t.Fatal(err)
		}
		s = rt.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		text, _ = readCompletion(s, s.Timing().Start)
		if s.Err() != nil || text != recordedCompletionText(t, keeps) {
			t.Errorf("Router: text %q, err %v; want the suffix-keeping route's %q", text, s.Err(), recordedCompletionText(t, keeps))
		}
		a := s.Timing().Attempts
		if len(a) != 2 || a[0].Outcome != tokenpace.OutcomeFailed || !errors.As(a[0].Err, &ae) || ae.StatusCode != http.StatusNotImplemented || a[1].Outcome != tokenpace.OutcomeWon {
			t.Errorf("Router attempts = %+v, want nofim failed with 501, keeps won", a)
		}
	})
}

// infillContent returns the text of a recorded /infill stream and how
// many of its events carry text.
func infillContent(t *testing.T, rec recording) (string, int) {
	t.Helper()
	var b strings.Builder
	n := 0
	eachRecordedEvent(t, rec, func(ev struct{ Content string }, _ recordedRead) {
		if ev.Content != "" {
			b.WriteString(ev.Content)
			n++
		}
	})
	return b.String(), n
}

// recordedCompletionText is the text of a recorded completions stream.
func recordedCompletionText(t *testing.T, rec recording) string {
	t.Helper()
	text, _ := recordedCompletion(t, rec)
	return text
}

// TestRelayedLlamaCppFillInTheMiddle: llama.cpp's server behind a relay
// that passes on none of its headers (one-api's streams) or sets a Server
// of its own (nginx) drops a suffix as it does direct; its
// system_fingerprint, on every chunk, tells it. A stream is refused by
// name at its first event, before any text, and the server is learnt: the
// next request goes to /infill, whose answer the caller gets where the
// relay routes it, and the refusal where it does not (404, or one-api's
// web page). A whole answer is read ahead and goes to /infill at once. A
// server with another fingerprint is read as before, its first token
// stamped when it arrived.
func TestRelayedLlamaCppFillInTheMiddle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dropped := loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl")
		dropped.Headers = map[string]string{"content-type": "text/event-stream"} // the relay's own headers
		infill := loadRecording(t, "llamacpp-2026-infill-stream.jsonl")
		infill.Headers = map[string]string{"content-type": "text/event-stream", "server": "nginx"}
		other := anotherServer(dropped) // a server of its own that keeps the suffix
		notFound := recording{Status: http.StatusNotFound, HeadersMS: 1, Headers: map[string]string{"content-type": "application/json"},
			Reads: []recordedRead{{TMS: 1, Data: `{"error":{"message":"Invalid URL (POST /infill)","type":"invalid_request_error","param":"","code":""}}`}}}
		url, hc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			switch r.URL.Path {
			case "/oneapi/v1/completions", "/nginx/v1/completions", "/webui/v1/completions":
				replay(dropped)(w, r)
			case "/oneapi/infill":
				replay(notFound)(w, r)
			case "/webui-whole/v1/completions":
				whole := loadRecording(t, "llamacpp-2026-completions-suffix-nostream.jsonl")
				replay(whole)(w, r)
			case "/onehub-whole/v1/completions":
				replay(loadRecording(t, "onehub-2026-completions-suffix-nostream.jsonl"))(w, r)
			case "/webui/infill", "/webui-whole/infill", "/onehub-whole/infill": // one-api and one-hub serve their web page for a path they do not route
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = io.WriteString(w, "<!doctype html><title>One API</title>")
			case "/nginx/infill":
				replay(infill)(w, r)
			case "/other/v1/completions":
				replay(other)(w, r)
			default:
				http.NotFound(w, r)
			}
		}))
		ctx := context.Background()
		_ = url // http://replay.invalid/v1/: each case has a path of its own
		client := func(base string) *tokenpace.Client {
			return tokenpace.NewClient(openaiClient("http://replay.invalid/"+base+"/v1/", hc))
		}

		refused := func(what string, s *tokenpace.Stream[openai.Completion]) {
			t.Helper()
			text, _ := readCompletion(s, s.Timing().Start)
			var se *tokenpace.StreamError
			if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(s.Err().Error(), "suffix") || text != "" {
				t.Errorf("%s: text %q, err %v; want no text and a KindRequest refusal naming the suffix", what, text, s.Err())
			}
		}
		for _, relay := range []string{"oneapi", "webui"} {
			c := client(relay)
			refused("behind "+relay, c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n")))
			s := c.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
			refused("behind "+relay+", again", s)
			if h := s.Timing().HTTP; len(h) != 1 || h[0].Status == 0 {
				t.Errorf("behind %s, again: %d HTTP tries; want 1, to /infill", relay, len(h))
			}
		}

		// Not streamed: one-api passes llama.cpp's headers on.
		if _, err := client("webui-whole").NewCompletion(ctx, fim("m", "def f(x):\n", "\n    return x\n")); err == nil || !strings.Contains(err.Error(), "suffix") {
			t.Errorf("behind one-api, not streamed: err %v; want the refusal naming the suffix", err)
		}

		// Not streamed, behind one-hub (recorded live, 2026): it rebuilds the
		// answer from its own types, without llama.cpp's headers and
		// system_fingerprint; llama.cpp's completion id is left.
		if _, err := client("onehub-whole").NewCompletion(ctx, fim("m", "def f(x):\n", "\n    return x\n")); err == nil || !strings.Contains(err.Error(), "suffix") {
			t.Errorf("behind one-hub, not streamed: err %v; want the refusal naming the suffix", err)
		}

		want, _ := infillContent(t, infill)
		nginx := client("nginx")
		refused("behind nginx", nginx.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n")))
		s := nginx.NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != want {
			t.Errorf("behind nginx, again: text %q, err %v; want /infill's %q", text, s.Err(), want)
		}

		s = client("other").NewCompletionStreaming(ctx, fim("m", "def f(x):\n", "\n    return x\n"))
		text, at := readCompletion(s, s.Timing().Start)
		if s.Err() != nil || text != recordedCompletionText(t, other) || len(s.Timing().HTTP) != 1 {
			t.Errorf("another server: text %q, err %v, %d HTTP tries; want its own answer at once", text, s.Err(), len(s.Timing().HTTP))
		}
		if first := ms(other.Reads[0].TMS); len(at) == 0 || s.Timing().TTFT() != first {
			t.Errorf("another server: TTFT %v, want the first chunk's arrival %v", s.Timing().TTFT(), first)
		}
	})
}

// TestLlamaCppRefusedSuffix replays what ik_llama.cpp (a build of August
// 2026, recorded live) answers to fill-in-the-middle, as llama.cpp's
// server did before November 2025: 500, "Unsupported param: suffix", on
// /v1/completions, and 500, "Only no echo is supported", for an echo. A
// server whose /infill works (llama.cpp's own) gives the caller /infill's
// answer after one refusal, not three (openai-go sends a 500 again twice);
// ik_llama.cpp's /infill completes its empty prompt and ignores the
// prefix and suffix, and that answer is refused by name, streamed or
// not. Neither refusal counts against a Router's breaker: the server is
// well, and its chat answers must still be asked for.
func TestLlamaCppRefusedSuffix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refusedSuffix := loadRecording(t, "ikllama-2026-completions-suffix-refused.jsonl")
		refusedEcho := loadRecording(t, "ikllama-2026-completions-echo-refused.jsonl")
		ignored := loadRecording(t, "ikllama-2026-infill-stream-ignored.jsonl")
		ignoredWhole := loadRecording(t, "ikllama-2026-infill-nostream-ignored.jsonl")
		infill := loadRecording(t, "llamacpp-2026-infill-stream.jsonl")
		dropped := loadRecording(t, "llamacpp-2026-completions-suffix-stream.jsonl")
		keeps := anotherServer(dropped) // a server that does fill-in-the-middle itself
		keeps.Headers = map[string]string{"content-type": dropped.Headers["content-type"]}
		_, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			stream := strings.Contains(string(body), `"stream":true`)
			switch {
			case strings.HasPrefix(r.URL.Path, "/keeps/"):
				replay(keeps)(w, r)
			case r.URL.Path == "/llamacpp/infill":
				replay(infill)(w, r)
			case strings.HasSuffix(r.URL.Path, "/infill") && stream:
				replay(ignored)(w, r)
			case strings.HasSuffix(r.URL.Path, "/infill"):
				replay(ignoredWhole)(w, r)
			case strings.Contains(string(body), `"echo":true`):
				replay(refusedEcho)(w, r)
			default:
				replay(refusedSuffix)(w, r)
			}
		})
		client := func(base string) *tokenpace.Client {
			return tokenpace.NewClient(openai.NewClient(option.WithBaseURL("http://"+base+".invalid/"+base+"/v1/"), option.WithHTTPClient(hc),
				option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(2))) // openai-go's default
		}
		ctx := context.Background()
		req := fim("tiny-fim", "def f(x):\n", "\n    return x\n")

		// llama.cpp before November 2025: /infill answers.
		want, _ := infillContent(t, infill)
		c := client("llamacpp")
		s := c.NewCompletionStreaming(ctx, req)
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != want || len(s.Timing().HTTP) != 2 || counts.of("/llamacpp/v1/completions") != 1 {
			t.Errorf("refused suffix, working /infill: text %q, err %v, %d HTTP tries, %v; want /infill's %q after one refusal", text, s.Err(), len(s.Timing().HTTP), counts, want)
		}
		s = c.NewCompletionStreaming(ctx, req)
		if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != want || len(s.Timing().HTTP) != 1 || counts.of("/llamacpp/v1/completions") != 1 {
			t.Errorf("refused suffix, again: text %q, err %v, %d HTTP tries; want /infill's text at once", text, s.Err(), len(s.Timing().HTTP))
		}

		// ik_llama.cpp: its /infill ignores the prefix and suffix.
		c = client("ik")
		s = c.NewCompletionStreaming(ctx, req)
		text, _ := readCompletion(s, s.Timing().Start)
		var se *tokenpace.StreamError
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || se.Detail != "infill_input_ignored" || !strings.Contains(s.Err().Error(), "input_prefix") || text != "" ||
			len(s.Timing().HTTP) != 2 || counts.of("/ik/v1/completions") != 1 || counts.of("/ik/infill") != 1 {
			t.Errorf("ik_llama.cpp stream: text %q, err %v, %d HTTP tries, %v; want a KindRequest refusal naming /infill's input after 2 tries", text, s.Err(), len(s.Timing().HTTP), counts)
		}
		_, err := c.NewCompletion(ctx, req)
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Code != "infill_input_ignored" || counts.of("/ik/infill") != 2 {
			t.Errorf("ik_llama.cpp, not streamed: err %v, %v; want a 400 infill_input_ignored from /infill at once", err, counts)
		}
		echo := fim("tiny-fim", "def f(x):\n", "")
		echo.Echo = openai.Bool(true)
		before := counts.of("/ik/v1/completions")
		s = c.NewCompletionStreaming(ctx, echo)
		text, _ = readCompletion(s, s.Timing().Start)
		if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !errors.As(s.Err(), &ae) || ae.StatusCode != http.StatusBadRequest ||
			ae.Message != "Only no echo is supported" || text != "" || counts.of("/ik/v1/completions") != before+1 {
			t.Errorf("echo: text %q, err %v, %d requests; want the server's refusal as a KindRequest 400, sent once", text, s.Err(), counts.of("/ik/v1/completions")-before)
		}

		// A Router falls back on each refusal, and the breaker stays closed.
		rt, err := tokenpace.NewRouter(client("ik"), tokenpace.Policy{},
			tokenpace.Route{Name: "ik"},
			tokenpace.Route{Name: "keeps", Options: []option.RequestOption{option.WithBaseURL("http://keeps.invalid/keeps/v1/")}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 { // more than the 5 failures that open a breaker
			s := rt.NewCompletionStreaming(ctx, req)
			text, _ := readCompletion(s, s.Timing().Start)
			if s.Err() != nil || text != recordedCompletionText(t, keeps) || len(s.Timing().Attempts) != 2 {
				t.Fatalf("Router call %d: text %q, err %v, %d attempts; want the suffix-keeping route's answer after ik's refusal", i, text, s.Err(), len(s.Timing().Attempts))
			}
		}
		if st, ok := rt.BreakerState("ik"); !ok || st != gobreaker.StateClosed {
			t.Errorf("ik's breaker %v after refusals, want closed", st)
		}
	})
}

// TestServersThatDropTheSuffix: LocalAI's completions endpoint has no
// suffix, whatever its backend, and answers a fill-in-the-middle request
// with a completion of its prompt alone, under no header that names it
// (recorded live, 2026, streamed and not). LMDeploy's api_server takes a
// suffix and never reads it (lmdeploy/serve/openai/endpoints/completions.py,
// protocol.py's CompletionRequest), under uvicorn's Server header; its
// answers' id is the request's session_id, "-1" unless one was given.
// text-generation-webui's API never gives the suffix to the model either:
// it sends it as the text of a stream's last chunk and at the end of a
// whole answer's text (modules/api/completions.py, completions_common),
// under uvicorn's Server header. TabbyAPI takes a suffix and an echo, "Not
// parsed. Only used for OAI compliance." (endpoints/OAI/types/common.py);
// its stream's chunks carry a chatcmpl- id of 32 hex digits, which a
// llama.cpp server's id would match, and it has no /infill. Nor does
// mlx_lm.server read a suffix or an echo (mlx_lm/server.py,
// handle_text_completions: the prompt alone), nor vllm-mlx, whose
// CompletionRequest has neither field (vllm_mlx/api/models.py), nor
// FastChat's openai_api_server, whose CompletionRequest takes a suffix
// that no worker is ever given (fastchat/serve/openai_api_server.py,
// get_gen_params), nor DeepSpeed-MII's OpenAI server, adapted from
// FastChat's, whose CompletionRequest takes both and nothing reads them
// (mii/entrypoints/openai_api_server.py, create_completion).
// mistral.rs's takes a suffix but
// never gives it to the model: it appends it to a whole answer's text
// (mistralrs-core/src/sequence.rs, add_completion_choice_to_group:
// prefix, text, suffix) and drops it from a stream, whose chunks are made
// elsewhere (pipeline/sampling.rs); its answers carry no header that
// names it, and system_fingerprint "local". LoRAX reads a suffix and
// never uses it (predibase/lorax router/src/lib.rs, CompletionRequest,
// #[allow(dead_code)]), under TGI's x-compute-type header; TGI itself
// refuses a suffix with 422 (router/src/server.rs, completions, since
// #1527), so a 200 under that header comes from a fork of its router.
// Hugging Face's transformers serve reads a suffix and completes the
// prompt alone, then sends the suffix as one more chunk's text, or
// appends it to a whole answer's text (huggingface/transformers
// src/transformers/cli/serving/completion.py), under uvicorn's Server
// header. llama-cpp-python's server has given every suffix to the model
// between three tokens of id 0, never the model's own fill-in-the-middle
// tokens, since 0.3.7 (llama_cpp/llama.py, _create_completion: the
// prefix, middle and suffix token ids fixed at 0, "TODO: Fix", to 0.3.35
// of August 2026): the model goes on after the suffix, and its text is no
// middle; nothing but the answer's shape names it (the id "cmpl-" and a
// UUID with its dashes, the text first in a choice). Xinference passes a
// completions request's members to its backend as keyword arguments, and
// none reads a suffix (xinference/model/llm/vllm/core.py,
// _sanitize_generate_config keeps the sampling parameters it knows; its
// llama.cpp backend pops the suffix), August 2026; its answers carry a
// uuid1 id.
// The caller gets a KindRequest
// refusal naming the server and the suffix, after one request each time
// (neither has an /infill to go to), and no text made without the suffix
// (nor a whole answer that ends with the suffix as if the model had
// written it). A completion without a suffix is the server's answer, as
// before.
func TestServersThatDropTheSuffix(t *testing.T) {
	for _, tt := range []struct{ name, server, fixture string }{
		{"LocalAI", "LocalAI", "localai"},
		{"mistral.rs", "mistral.rs", "mistralrs"},
		{"LMDeploy", "LMDeploy", "lmdeploy"},
		{"text-generation-webui", "text-generation-webui", "textgen"},
		{"TabbyAPI", "TabbyAPI", "tabbyapi"},
		{"mlx_lm.server", "mlx_lm.server", "mlxlm"},
		{"vllm-mlx", "vllm-mlx", "vllmmlx"},
		{"FastChat", "FastChat or DeepSpeed-MII", "fastchat"},
		{"DeepSpeed-MII", "FastChat or DeepSpeed-MII", "deepspeedmii"},
		{"llama-box", "llama-box", "llamabox"},
		{"Modular MAX", "Modular MAX", "maxserve"},
		{"LoRAX", "LoRAX or another fork of TGI's router", "lorax"},
		{"transformers serve", "transformers serve", "transformersserve"},
		{"llama-cpp-python", "llama-cpp-python's server", "llamacpppython"},
		{"Xinference", "Xinference", "xinference"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stream := loadRecording(t, tt.fixture+"-2026-completions-suffix-stream.jsonl")
				whole := loadRecording(t, tt.fixture+"-2026-completions-suffix-nostream.jsonl")
				c, counts := serveFIM(t, stream, whole)
				ctx := context.Background()
				req := fim("tiny", "def add(a, b):\n", "\n    return c\n")
				for i := range 2 {
					checkRefusedByName(t, c, req, tt.server+" ignores suffix", fmt.Sprintf("request %d", i))
				}
				if n := counts.of("/v1/completions"); n != 4 || counts.of("/infill") != 0 {
					t.Errorf("requests %v; want 4 to /v1/completions and none to /infill", counts)
				}

				plain := req
				plain.Suffix = openai.String("")
				s := c.NewCompletionStreaming(ctx, plain)
				if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
					t.Errorf("no suffix: text %q, err %v; want %s's answer", text, s.Err(), tt.server)
				}
			})
		})
	}
}

// anotherServer returns rec, a recording of llama.cpp's server, as
// another server would have sent it: its own system_fingerprint and
// completion ids, so that nothing in it tells llama.cpp's.
func anotherServer(rec recording) recording {
	r := strings.NewReplacer(`"system_fingerprint":"b0-unknown"`, `"system_fingerprint":"fp_other"`, `"id":"chatcmpl-`, `"id":"cmpl-`)
	out := rec
	out.Reads = make([]recordedRead, len(rec.Reads))
	for i, rd := range rec.Reads {
		rd.Data = r.Replace(rd.Data)
		out.Reads[i] = rd
	}
	return out
}

// serveFIM serves stream to a streamed request and whole to any other,
// counting the requests by path.
func serveFIM(t *testing.T, stream, whole recording) (*tokenpace.Client, *requestCounts) {
	t.Helper()
	url, hc, counts := serveCounting(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), `"stream":true`) {
			replay(stream)(w, r)
			return
		}
		replay(whole)(w, r)
	})
	return tokenpace.NewClient(openaiClient(url, hc)), counts
}

// checkRefusedByName checks that req, streamed and not, gets a KindRequest
// refusal whose message holds name ("LocalAI ignores suffix"), and the
// stream no text, after one HTTP request.
func checkRefusedByName(t *testing.T, c *tokenpace.Client, req openai.CompletionNewParams, name, what string) {
	t.Helper()
	ctx := context.Background()
	s := c.NewCompletionStreaming(ctx, req)
	text, _ := readCompletion(s, s.Timing().Start)
	var se *tokenpace.StreamError
	if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(se.Detail, name) || text != "" || len(s.Timing().HTTP) != 1 {
		t.Errorf("%s: stream: text %q, err %v, %d HTTP tries; want no text and a KindRequest refusal %q after one", what, text, s.Err(), len(s.Timing().HTTP), name)
	}
	if _, err := c.NewCompletion(ctx, req); !errors.As(err, &se) || se.Kind != tokenpace.KindRequest || !strings.Contains(err.Error(), name) {
		t.Errorf("%s: whole: err %v; want a KindRequest refusal %q", what, err, name)
	}
}

// TestServersThatDropTheEchoOfAStream: mistral.rs puts the prompt before
// a whole answer's text when asked to echo it
// (mistralrs-core/src/sequence.rs, add_completion_choice_to_group: prefix,
// text, suffix), and never in a stream, whose chunks are made elsewhere
// (pipeline/sampling.rs, add_streaming_completion_chunk_choice_to_group,
// from the completion's bytes alone). LoRAX gives echo to
// return_full_text, which its generate honours and its stream carries
// only in the last StreamResponse's generated_text, a member its
// completion chunks never write (predibase/lorax router/src/server.rs,
// generate_stream_with_callback; router/src/lib.rs, From<StreamResponse>
// for CompletionStreamResponse). llama-cpp-python's server puts the
// prompt before a whole answer's text and returns from a stream before
// it would (llama_cpp/llama.py, _create_completion, 0.3.35): its chunks
// hold the completion alone. So does LocalAI: it puts the prompt before
// the final prediction (core/backend/llm.go, Finetune), which a stream
// never sends, its chunks the backend's tokens as they come
// (core/http/endpoints/openai/completion.go, August 2026). A streamed
// echo request gets a
// KindRequest refusal naming the server and the echo, after one request
// and before any text; a whole one the server's answer, its prompt
// first; a stream without echo the server's answer.
func TestServersThatDropTheEchoOfAStream(t *testing.T) {
	const prompt = "def add(a, b):\n"
	for _, tt := range []struct{ server, fixture, whole, finish string }{
		{"mistral.rs", "mistralrs", prompt + "    return a + b\n\ndef", "length"},
		{"LoRAX", "lorax", prompt + "    return a + b", "length"},
		{"llama-cpp-python's server", "llamacpppython", prompt + "    return a + b", "length"},
		{"LocalAI", "localai", prompt + "    return a + b", "stop"}, // its every whole answer's word
	} {
		t.Run(tt.server, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stream := loadRecording(t, tt.fixture+"-2026-completions-echo-stream.jsonl")
				whole := loadRecording(t, tt.fixture+"-2026-completions-echo-nostream.jsonl")
				c, counts := serveFIM(t, stream, whole)
				ctx := context.Background()
				req := fim("tiny", prompt, "")
				req.Echo = openai.Bool(true)
				for i := range 2 {
					s := c.NewCompletionStreaming(ctx, req)
					text, _ := readCompletion(s, s.Timing().Start)
					var se *tokenpace.StreamError
					if !errors.As(s.Err(), &se) || se.Kind != tokenpace.KindRequest || se.Detail != tt.server+" ignores echo on /v1/completions" ||
						text != "" || len(s.Timing().HTTP) != 1 {
						t.Errorf("stream %d: text %q, err %v, %d HTTP tries; want no text and a KindRequest refusal naming %s and echo after one", i, text, s.Err(), len(s.Timing().HTTP), tt.server)
					}
				}
				r, err := c.NewCompletion(ctx, req)
				if err != nil || len(r.Choices) != 1 || r.Choices[0].Text != tt.whole || string(r.Choices[0].FinishReason) != tt.finish {
					t.Errorf("whole: %+v, %v; want %q, %s", r, err, tt.whole, tt.finish)
				}
				plain := req
				plain.Echo = openai.Bool(false)
				s := c.NewCompletionStreaming(ctx, plain)
				if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
					t.Errorf("no echo: text %q, err %v; want %s's answer", text, s.Err(), tt.server)
				}
				if n := counts.of("/v1/completions"); n != 4 {
					t.Errorf("requests %v; want 4 to /v1/completions", counts)
				}
			})
		})
	}
}

// TestServersThatDropTheEcho: LMDeploy's api_server, TabbyAPI and
// mlx_lm.server take echo on /v1/completions and never read it
// (lmdeploy/serve/openai/endpoints/completions.py, August 2026;
// tabbyAPI endpoints/OAI/types/common.py, "Not parsed"; mlx_lm/server.py,
// handle_text_completions; vllm-mlx, vllm_mlx/api/models.py; llamafile's
// own server, llamafile/server/v1_completions.cpp, which reads it and
// never uses it, under its Server header): a whole answer
// and a stream alike hold the completion without its prompt, under no
// header that names the server. TGI's CompletionRequest has no echo,
// which serde drops (router/src/lib.rs), and its completions never ask
// for the full text (router/src/server.rs, return_full_text None), under
// its x-compute-type header. Ollama's CompletionRequest has no echo,
// which encoding/json drops (openai/openai.go, August 2026), under no
// header of its own; its answers say system_fingerprint "fp_ollama".
// Xinference reads no echo either (no backend's generate does).
// Each request gets a KindRequest refusal
// naming the server and the echo, after one request and before any text;
// a stream without echo gets the server's answer.
func TestServersThatDropTheEcho(t *testing.T) {
	for _, tt := range []struct{ server, fixture string }{
		{"LMDeploy", "lmdeploy"},
		{"TabbyAPI", "tabbyapi"},
		{"mlx_lm.server", "mlxlm"},
		{"vllm-mlx", "vllmmlx"},
		{"llamafile", "llamafile"},
		{"llama-box", "llamabox"},
		{"Modular MAX", "maxserve"},
		{"TGI", "tgi"},
		{"Ollama", "ollama"},
		{"Xinference", "xinference"},
	} {
		t.Run(tt.server, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stream := loadRecording(t, tt.fixture+"-2026-completions-echo-stream.jsonl")
				whole := loadRecording(t, tt.fixture+"-2026-completions-echo-nostream.jsonl")
				c, counts := serveFIM(t, stream, whole)
				req := fim("tiny", "def add(a, b):\n", "")
				req.Echo = openai.Bool(true)
				for i := range 2 {
					checkRefusedByName(t, c, req, tt.server+" ignores echo", fmt.Sprintf("request %d", i))
				}
				plain := req
				plain.Echo = openai.Bool(false)
				s := c.NewCompletionStreaming(context.Background(), plain)
				if text, _ := readCompletion(s, s.Timing().Start); s.Err() != nil || text != recordedCompletionText(t, stream) {
					t.Errorf("no echo: text %q, err %v; want %s's answer", text, s.Err(), tt.server)
				}
				if n := counts.of("/v1/completions"); n != 5 {
					t.Errorf("requests %v; want 5 to /v1/completions", counts)
				}
			})
		})
	}
}
