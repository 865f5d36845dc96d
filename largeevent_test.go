package tokenpace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tokenpace/tokenpace"
)

// imageStream is a Responses stream that generates an image of size bytes
// of base64, as OpenAI's image generation tool streams it: a partial
// image, the whole image again in output_item.done and in
// response.completed; text, if any, before the end.
func imageStream(size int, text string) string {
	image := strings.Repeat("A", size)
	var b strings.Builder
	seq := 0
	event := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		data, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	resp := map[string]any{"id": "resp_img", "object": "response", "status": "in_progress", "model": "gpt-5", "output": []any{}}
	event(map[string]any{"type": "response.created", "response": resp})
	item := map[string]any{"id": "ig_1", "type": "image_generation_call", "status": "generating"}
	event(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	event(map[string]any{"type": "response.image_generation_call.partial_image", "item_id": "ig_1", "output_index": 0, "partial_image_index": 0, "partial_image_b64": image})
	done := map[string]any{"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": image}
	event(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done})
	if text != "" {
		event(map[string]any{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": text})
	}
	resp["status"], resp["output"] = "completed", []any{done}
	resp["usage"] = map[string]any{"input_tokens": 20, "output_tokens": 30, "total_tokens": 50}
	event(map[string]any{"type": "response.completed", "response": resp})
	return b.String()
}

// A stream whose events are as large as image generation makes them (a
// 6 MiB image, sent three times) reads to its end, as it does through
// bare openai-go: the client's bound on an event is openai-go's own.
func TestImageGenerationEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, sseBody(imageStream(6<<20, "Here it is.")))
		oc := openaiClient(url, hc)
		bare := oc.Responses.NewStreaming(context.Background(), respond("gpt-5", 64))
		var bareText strings.Builder
		for bare.Next() {
			bareText.WriteString(bare.Current().Delta)
		}
		if err := bare.Err(); err != nil {
			t.Fatalf("bare openai-go: Err() = %v, want nil", err)
		}

		s := tokenpace.NewClient(oc).NewResponseStreaming(context.Background(), respond("gpt-5", 64))
		var partial int
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.image_generation_call.partial_image" {
				partial = len(ev.PartialImageB64)
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if s.Text() != "Here it is." || partial != 6<<20 {
			t.Errorf("text %q, a partial image of %d bytes; want %q and %d", s.Text(), partial, "Here it is.", 6<<20)
		}
		if tm := s.Timing(); tm.OutputTokens != 30 {
			t.Errorf("%d output tokens, want 30", tm.OutputTokens)
		}
	})
}

// An answer that is an image alone is not an empty one: a Router keeps
// it, and does not generate the image again on its next route.
func TestImageAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, byModel(map[string]http.Handler{"gpt-5": sseBody(imageStream(1<<10, "")), "second": secondRoute}))
		r, err := tokenpace.NewRouter(tokenpace.NewClient(openaiClient(url, hc)), tokenpace.Policy{}, route("gpt-5"), route("second"))
		if err != nil {
			t.Fatal(err)
		}
		s := r.NewResponseStreaming(context.Background(), respond("gpt-5", 64))
		var images int
		for s.Next() {
			if s.Current().Type == "response.image_generation_call.partial_image" {
				images++
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		tm := s.Timing()
		if got := outcomes(tm); !slices.Equal(got, []tokenpace.Outcome{tokenpace.OutcomeWon}) || images != 1 || s.Text() != "" {
			t.Errorf("attempts %v, %d partial images, text %q; want the image route alone, won, its image and no text", got, images, s.Text())
		}
		if tm.OutputChunks != 1 || len(tm.Chunks) != 1 {
			t.Errorf("%d output chunks (%d stamped), want 1: the partial image", tm.OutputChunks, len(tm.Chunks))
		}
	})
}

// logprobStream is a Responses stream of tokens tokens whose final event
// holds each token's log probability with top alternatives, as
// response.completed holds them when the request asks for them.
func logprobStream(tokens, top int) string {
	alt := `{"token":"b","bytes":[98],"logprob":-2.5}`
	lp := `{"token":"a","bytes":[97],"logprob":-0.1,"top_logprobs":[` + strings.TrimSuffix(strings.Repeat(alt+",", top), ",") + `]}`
	lps := strings.TrimSuffix(strings.Repeat(lp+",", tokens), ",")
	text := strings.Repeat("a", tokens)
	return `data: {"type":"response.created","sequence_number":0,"response":{"id":"r","object":"response","status":"in_progress","model":"m","output":[]}}` + "\n\n" +
		`data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg","output_index":0,"content_index":0,"delta":"` + text + `"}` + "\n\n" +
		`data: {"type":"response.completed","sequence_number":2,"response":{"id":"r","object":"response","status":"completed","model":"m","output":[{"type":"message","id":"msg","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text + `","annotations":[],"logprobs":[` + lps + `]}]}],` +
		`"usage":{"input_tokens":5,"output_tokens":` + fmt.Sprint(tokens) + `,"total_tokens":` + fmt.Sprint(tokens+5) + `}}}` + "\n\n"
}

// The log probabilities a request asks for are read whole, however long
// the answer: 4,000 tokens with 20 alternatives each are 84,000 JSON
// objects in the final event, more than a response's events are allowed
// otherwise. A request that did not ask for them keeps that bound.
func TestResponseLogprobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, hc := serve(t, sseBody(logprobStream(4000, 20)))
		c := tokenpace.NewClient(openaiClient(url, hc))
		p := respond("m", 4096)
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableMessageOutputTextLogprobs}
		p.TopLogprobs = openai.Int(20)
		s := c.NewResponseStreaming(context.Background(), p)
		var final *responses.Response
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.completed" {
				final = &ev.Response
			}
		}
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v, want nil", err)
		}
		if final == nil || len(final.Output[0].Content[0].Logprobs) != 4000 || len(final.Output[0].Content[0].Logprobs[0].TopLogprobs) != 20 {
			t.Errorf("the final event does not hold 4,000 log probabilities of 20 alternatives each")
		}

		s = c.NewResponseStreaming(context.Background(), respond("m", 4096))
		for s.Next() {
		}
		s.Close()
		checkKind(t, s.Err(), tokenpace.KindTooLarge)
		if s.Text() != strings.Repeat("a", 4000) {
			t.Errorf("a request without log probabilities kept %d bytes of text, want the 4,000 that came before the final event", len(s.Text()))
		}
	})
}
