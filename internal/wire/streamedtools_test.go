package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestUnstreamed: only a streamed request with tools goes whole, without
// stream_options.
func TestUnstreamed(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{`{"stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"a"}}]}`,
			`{"stream":false,"tools":[{"type":"function","function":{"name":"a"}}]}`, true},
		{`{"stream":true,"tools":[]}`, `{"stream":true,"tools":[]}`, false},
		{`{"stream":false,"tools":[{"type":"function","function":{"name":"a"}}]}`, `{"stream":false,"tools":[{"type":"function","function":{"name":"a"}}]}`, false},
		{`{"stream":true}`, `{"stream":true}`, false},
	} {
		got, ok := Unstreamed([]byte(tt.in))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("Unstreamed(%s) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestAsStream: a whole chat answer becomes one chunk, each message its
// choice's delta, each tool call indexed, the usage kept, then [DONE];
// an error object is passed on as an event; an error status is left as
// it is.
func TestAsStream(t *testing.T) {
	for _, tt := range []struct {
		status     int
		body, want string
	}{
		{200, `{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","content":null,
"tool_calls":[{"type":"function","function":{"name":"a","arguments":"{}"},"id":"x"},{"type":"function","function":{"name":"b","arguments":"{}"},"id":"y"}]}}],
"created":1,"model":"m","object":"chat.completion","usage":{"completion_tokens":5,"prompt_tokens":3,"total_tokens":8},"id":"c"}`,
			`data: {"choices":[{"finish_reason":"tool_calls","index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"a","arguments":"{}"},"id":"x","index":0},{"type":"function","function":{"name":"b","arguments":"{}"},"id":"y","index":1}]}}],"created":1,"model":"m","object":"chat.completion.chunk","usage":{"completion_tokens":5,"prompt_tokens":3,"total_tokens":8},"id":"c"}` + "\n\ndata: [DONE]\n\n"},
		{200, `{"error":{"code":500,"message":"boom"}}`, "data: {\"error\":{\"code\":500,\"message\":\"boom\"}}\n\ndata: [DONE]\n\n"},
		{500, `{"error":{"code":500,"message":"boom"}}`, `{"error":{"code":500,"message":"boom"}}`},
	} {
		res := AsStream(&http.Response{StatusCode: tt.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(tt.body))})
		b, err := io.ReadAll(res.Body)
		if err != nil || string(b) != tt.want {
			t.Errorf("%d %s:\n got %s (%v)\nwant %s", tt.status, tt.body, b, err, tt.want)
		}
		if ct := res.Header.Get("Content-Type"); (tt.status < 300) != (ct == "text/event-stream") {
			t.Errorf("%d: Content-Type %q", tt.status, ct)
		}
	}
}

// TestAsStreamBound: a whole answer over the bound of one fails as a
// whole answer does, with ErrBodyTooLarge, instead of taking memory.
func TestAsStreamBound(t *testing.T) {
	res := AsStream(&http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(io.LimitReader(zeros{}, maxWholeBody+10))})
	if _, err := io.ReadAll(res.Body); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("err %v, want ErrBodyTooLarge", err)
	}
}

// TestAsStreamAllocs: a whole answer of many choices, or of a message of
// many tool calls, is made an event in time and memory in proportion to
// it. Each choice and each tool call was set in a copy of the whole
// chunk: 4,000 empty choices (12 KB) allocated 466 MB, 4,000 tool calls
// 1.75 GB (16,000 choices took 22 s of CPU, which no deadline of the
// caller's cut short, and a 32 MiB answer hours); now 2.8 and 8.4 MB.
func TestAsStreamAllocs(t *testing.T) {
	calls := strings.Repeat(`{"type":"function","function":{"name":"a","arguments":"{}"}},`, 4000)
	for _, tt := range []struct {
		name, body string
	}{
		{"4000 choices", `{"object":"chat.completion","choices":[` + strings.Repeat(`{},`, 4000) + `{}]}`},
		{"4000 tool calls", `{"object":"chat.completion","choices":[{"index":0,"message":{"tool_calls":[` + calls + `{}]}}]}`},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := AsStream(&http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))})
		out, err := io.ReadAll(res.Body)
		runtime.ReadMemStats(&after)
		if err != nil || !bytes.HasPrefix(out, []byte(`data: {"object":"chat.completion.chunk"`)) {
			t.Errorf("AsStream(%s) = %.80s (%v), want one chunk", tt.name, out, err)
		}
		// 4 KiB for each choice or call, and 16 bytes for each of the body's.
		if got, want := after.TotalAlloc-before.TotalAlloc, uint64(4000*4<<10+16*len(tt.body)); got > want {
			t.Errorf("AsStream(%s) allocated %d bytes, want at most %d", tt.name, got, want)
		}
	}
}

// FuzzAsStream feeds whole chat answers of any bytes to the stream made
// of them: it never panics, stays within a bound of what it read, and is
// one data event then [DONE]; the event is JSON whenever the answer was.
func FuzzAsStream(f *testing.F) {
	f.Add([]byte(`{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"a","arguments":"{}"},"id":"x"}]}}],"object":"chat.completion"}`))
	f.Add([]byte(`{"object":"chat.completion","choices":[{},{"message":null},{"message":{"tool_calls":{}}}]}`))
	f.Add([]byte("{\"object\":\"chat.completion\",\n\"choices\":[]}"))
	f.Add([]byte(`{"error":{"message":"x"}}`))
	f.Add([]byte("not json\n\nat all"))
	f.Fuzz(func(t *testing.T, body []byte) {
		res := AsStream(&http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))})
		out, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 4*len(body)+1<<10 {
			t.Fatalf("%d bytes out of %d in", len(out), len(body))
		}
		data, ok := strings.CutPrefix(string(out), "data: ")
		data, done := strings.CutSuffix(data, "\n\ndata: [DONE]\n\n")
		if !ok || !done || strings.Contains(data, "\n") {
			t.Fatalf("not one data event and [DONE]: %q", out)
		}
		if json.Valid(body) && !json.Valid([]byte(data)) {
			t.Fatalf("JSON %q made %q", body, data)
		}
	})
}

// TestRefusedStreamedTools: llama.cpp's refusal of a stream with tools
// is told by its message; a refusal of a tool's shape is not that.
func TestRefusedStreamedTools(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{500, `{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`, true},
		{200, `{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`, false},
		{500, `{"error":{"code":500,"message":"Failed to parse tools: key 'description' not found"}}`, false},
	} {
		res := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := RefusedTools(res) == StreamedTools; got != tt.want {
			t.Errorf("%d %s: %v, want %v", tt.status, tt.body, got, tt.want)
		}
	}
}
