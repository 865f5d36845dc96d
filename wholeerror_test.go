package tokenpace_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// openRouterLate answers a non-streaming request as OpenRouter does when
// the model failed after it had started on it: status 200, and the error
// in the body (openrouter.ai/docs/api-reference/errors).
var openRouterLate = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "\n\n"+`{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Example"}}}`)
})

// wholeAnswer answers a non-streaming chat request with text.
func wholeAnswer(text string) http.HandlerFunc {
	return jsonAnswer(`{"id":"c","object":"chat.completion","created":1,"model":"second","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`)
}

// jsonAnswer answers every request with body, a JSON object.
func jsonAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

// An error a server sends with status 200 in the place of a whole answer
// is the server's error, not an empty answer: the Client returns it as an
// error event, with the server's message, and a Router goes on to its
// next route. openai-go returns a completion without choices and no error.
func TestWholeErrorWithStatus200(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"late": openRouterLate, "second": wholeAnswer("Hi.")}))
		oc := openaiClient(url, hc)
		if res, err := oc.Chat.Completions.New(context.Background(), chat("late", 8)); err != nil || len(res.Choices) != 0 {
			t.Fatalf("bare openai-go: %d choices, err %v; want none and nil, the failure this test is about", len(res.Choices), err)
		}

		c := tokenpace.NewClient(oc)
		_, err := c.New(context.Background(), chat("late", 8))
		var oe *openai.Error
		if se := checkKind(t, err, tokenpace.KindErrorEvent); se == nil || !errors.As(err, &oe) || oe.Message != "Provider returned error" {
			t.Errorf("New() error = %v, want the server's error event %q", err, "Provider returned error")
		}

		r, rerr := tokenpace.NewRouter(c, tokenpace.Policy{}, route("late"), route("second"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		var tm *tokenpace.Timing
		res, err := r.New(context.Background(), chat("late", 8), tokenpace.WithTimingInto(&tm))
		if err != nil || res.Choices[0].Message.Content != "Hi." {
			t.Fatalf("Router.New() = %v; want the second route's answer", err)
		}
		if got := outcomes(tm); !slices.Equal(got, []tokenpace.Outcome{tokenpace.OutcomeFailed, tokenpace.OutcomeWon}) {
			t.Errorf("attempts %v, want failed, won", got)
		}
	})
}

// A whole response that failed (status "failed") is the server's error;
// one whose answer is a call of another tool than a function (here a
// generated image) is an answer, not an empty one.
func TestWholeResponseFailedOrImage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{
			"failed": jsonAnswer(`{"id":"r1","object":"response","status":"failed","model":"m","output":[],"error":{"code":"server_error","message":"The model failed."}}`),
			"image":  jsonAnswer(`{"id":"r2","object":"response","status":"completed","model":"m","output":[{"type":"image_generation_call","id":"ig","status":"completed","result":"AAAA"}],"usage":{"input_tokens":5,"output_tokens":9,"total_tokens":14}}`),
			"second": jsonAnswer(`{"id":"r3","object":"response","status":"completed","model":"second","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"` + strings.TrimSpace(extra) + `","annotations":[]}]}]}`),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		_, err := c.NewResponse(context.Background(), responses.ResponseNewParams{Model: "failed", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}})
		var oe *openai.Error
		if checkKind(t, err, tokenpace.KindErrorEvent); !errors.As(err, &oe) || oe.Message != "The model failed." {
			t.Errorf("NewResponse() of a failed response: %v, want its error", err)
		}

		r, rerr := tokenpace.NewRouter(c, tokenpace.Policy{}, route("image"), route("second"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		var tm *tokenpace.Timing
		res, err := r.NewResponse(context.Background(), responses.ResponseNewParams{Model: "image", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}}, tokenpace.WithTimingInto(&tm))
		if err != nil || res.ID != "r2" || len(tm.Attempts) != 1 {
			t.Errorf("Router.NewResponse() = %v, %d attempts; want the image, from the first route", err, len(tm.Attempts))
		}
	})
}

// A streaming request answered with status 200 and a JSON error body
// instead of an event stream gets that error, the server's message
// within, not only that the body was no stream.
func TestStreamAnsweredWithJSONError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, openRouterLate)
		s := tokenpace.NewClient(openaiClient(url, hc)).NewStreaming(context.Background(), chat("m", 8))
		readAll(t, s)
		var oe *openai.Error
		if checkKind(t, s.Err(), tokenpace.KindErrorEvent); !errors.As(s.Err(), &oe) || oe.Message != "Provider returned error" {
			t.Errorf("Err() = %v, want the server's error %q", s.Err(), "Provider returned error")
		}
	})
}

// A whole chat answer that is an image alone (OpenRouter's image models)
// or audio alone is an answer: a Router keeps it, and does not ask its
// next route again.
func TestWholeImageOrAudioAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{
			"image":  jsonAnswer(`{"id":"i","object":"chat.completion","created":1,"model":"image","choices":[{"index":0,"message":{"role":"assistant","content":"","images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},"finish_reason":"stop"}]}`),
			"audio":  jsonAnswer(`{"id":"a","object":"chat.completion","created":1,"model":"audio","choices":[{"index":0,"message":{"role":"assistant","content":null,"audio":{"id":"audio_1","data":"AAAA","expires_at":1760003600,"transcript":"Hi."}},"finish_reason":"stop"}]}`),
			"second": wholeAnswer("second"),
		}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		for _, model := range []string{"image", "audio"} {
			r, err := tokenpace.NewRouter(c, tokenpace.Policy{}, route(model), route("second"))
			if err != nil {
				t.Fatal(err)
			}
			var tm *tokenpace.Timing
			res, err := r.New(context.Background(), chat(model, 8), tokenpace.WithTimingInto(&tm))
			if want := model[:1]; err != nil || res.ID != want || len(tm.Attempts) != 1 {
				t.Errorf("%s: Router.New() = %v, %d attempts; want the first route's answer", model, err, len(tm.Attempts))
			}
		}
	})
}

// A whole answer whose finish reason says the server stopped it itself
// (vLLM's "abort") comes with a KindTruncated error and the text it had;
// a Router goes on to its next route.
func TestWholeAbortedAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		aborted := jsonAnswer(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How"},"finish_reason":"abort"}]}`)
		url, hc := serve(t, byModel(map[string]http.Handler{"aborted": aborted, "second": wholeAnswer("Hi.")}))
		c := tokenpace.NewClient(openaiClient(url, hc))
		var tm *tokenpace.Timing
		res, err := c.New(context.Background(), chat("aborted", 8), tokenpace.WithTimingInto(&tm))
		if se := checkKind(t, err, tokenpace.KindTruncated); se != nil && se.Detail != `finish_reason "abort"` {
			t.Errorf("New() error detail %q, want %q", se.Detail, `finish_reason "abort"`)
		}
		if res == nil || res.Choices[0].Message.Content != "Hello! How" {
			t.Errorf("New() = %v, want the answer's text kept beside the error", res)
		}
		if tm == nil || tm.Err != err || tm.FinishReason != "abort" {
			t.Errorf("Timing = %+v, want the error and the finish reason", tm)
		}

		r, rerr := tokenpace.NewRouter(c, tokenpace.Policy{}, route("aborted"), route("second"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		res, err = r.New(context.Background(), chat("aborted", 8))
		if err != nil || res.Choices[0].Message.Content != "Hi." {
			t.Errorf("Router.New() = %v, %v; want the second route's answer", res, err)
		}
	})
}
