package simulate_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tokenpace/tokenpace/simulate"
)

const streamBody = `{"model":"m","stream":true,"max_tokens":%d,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Tell me about latency."}]}`

func TestSSEFraming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t, simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}))
		x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 3), nil)
		for k, want := range map[string]string{
			"Content-Type":      "text/event-stream",
			"Cache-Control":     "no-cache",
			"X-Accel-Buffering": "no",
		} {
			if got := x.header.Get(k); got != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
		if x.headersAt != 0 {
			t.Errorf("headers arrived at %v, want 0 (at once)", x.headersAt)
		}
		// role, 3 tokens, finish, usage, [DONE]
		if len(x.events) != 7 {
			t.Fatalf("events = %d, want 7: %v", len(x.events), x.events)
		}
		role := decodeChunk(t, x.events[0].data)
		if r := role.Choices[0].Delta.Role; r == nil || *r != "assistant" {
			t.Errorf("first chunk role = %v, want assistant", r)
		}
		if x.events[0].at != ms(100) {
			t.Errorf("role chunk arrived at %v, want %v (with the first token)", x.events[0].at, ms(100))
		}
		for i := 1; i <= 3; i++ {
			c := decodeChunk(t, x.events[i].data)
			if c.Object != "chat.completion.chunk" || c.Model != "m" {
				t.Errorf("chunk %d object, model = %q, %q, want chat.completion.chunk, m", i, c.Object, c.Model)
			}
			if _, ok := c.content(); !ok {
				t.Errorf("chunk %d carries no content: %s", i, x.events[i].data)
			}
			if want := ms(100 + 10*(i-1)); x.events[i].at != want {
				t.Errorf("chunk %d arrived at %v, want %v", i, x.events[i].at, want)
			}
		}
		fin := decodeChunk(t, x.events[4].data)
		if f := fin.Choices[0].FinishReason; f == nil || *f != "length" {
			t.Errorf("finish chunk finish_reason = %v, want length", f)
		}
		u := decodeChunk(t, x.events[5].data)
		if u.Usage == nil || len(u.Choices) != 0 || u.Usage.CompletionTokens != 3 || u.Usage.TotalTokens != u.Usage.PromptTokens+3 {
			t.Errorf("usage chunk = %s, want choices [] and 3 completion tokens", x.events[5].data)
		}
		if x.events[6].data != "[DONE]" {
			t.Errorf("last event = %q, want [DONE]", x.events[6].data)
		}
		if x.events[6].at != ms(120) {
			t.Errorf("[DONE] arrived at %v, want %v", x.events[6].at, ms(120))
		}
	})
}

func TestRoleFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithRoleFirst(true), simulate.WithRTT(ms(20)))
		x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 2), nil)
		if len(x.events) < 2 {
			t.Fatalf("events = %v, want at least 2", x.events)
		}
		if x.events[0].at != ms(20) || x.headersAt != ms(20) {
			t.Errorf("headers, role chunk arrived at %v, %v, want %v (one RTT)", x.headersAt, x.events[0].at, ms(20))
		}
		if x.events[1].at != ms(120) {
			t.Errorf("first token arrived at %v, want %v", x.events[1].at, ms(120))
		}
	})
}

func TestChunkTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithChunkTokens(3),
			simulate.WithReply(func(simulate.ReplyInfo) (string, bool) { return "a b c d e f g", true }))
		x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 100), nil)
		type want struct {
			at   time.Duration
			text string
		}
		wants := []want{{ms(120), "a b c"}, {ms(150), " d e f"}, {ms(160), " g"}}
		var got []want
		for _, e := range x.events {
			if e.data == "[DONE]" {
				continue
			}
			if s, ok := decodeChunk(t, e.data).content(); ok {
				got = append(got, want{e.at, s})
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wants) {
			t.Errorf("chunks = %v, want %v", got, wants)
		}
	})
}

func TestBufferingDeliversAtEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(100), ITL: ms(10)}),
			simulate.WithBuffering(true), simulate.WithRTT(ms(40)))
		x := post(t, ts, "/v1/chat/completions", fmt.Sprintf(streamBody, 10), nil)
		end := ms(40 + 100 + 90)
		if x.headersAt != end {
			t.Errorf("headers arrived at %v, want %v", x.headersAt, end)
		}
		if len(x.events) != 14 {
			t.Fatalf("events = %d, want 14", len(x.events))
		}
		for i, e := range x.events {
			if e.at != end {
				t.Errorf("event %d arrived at %v, want %v (all at the end)", i, e.at, end)
			}
		}
	})
}

func TestCompletionsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := simulate.StartInMemory(t,
			simulate.WithModel("m", &simulate.Fixed{TTFT: ms(50), ITL: ms(5)}),
			simulate.WithReply(func(r simulate.ReplyInfo) (string, bool) { return "echo: " + r.Prompt, true }))
		x := post(t, ts, "/v1/completions", `{"model":"m","prompt":"ping","stream":true,"max_tokens":10}`, nil)
		var text string
		var finish string
		for _, e := range x.events[:len(x.events)-1] {
			c := decodeChunk(t, e.data)
			if c.Object != "text_completion" {
				t.Errorf("object = %q, want text_completion", c.Object)
			}
			s, _ := c.content()
			text += s
			if f := c.Choices[0].FinishReason; f != nil {
				finish = *f
			}
		}
		if text != "echo: ping" || finish != "stop" {
			t.Errorf("text, finish = %q, %q, want %q, stop", text, finish, "echo: ping")
		}
		if last := x.events[len(x.events)-1]; last.data != "[DONE]" || last.at != ms(55) {
			t.Errorf("last event = %q at %v, want [DONE] at %v", last.data, last.at, ms(55))
		}
	})
}
