package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
)

func TestToInfill(t *testing.T) {
	for _, tt := range []struct {
		path, body string
		ok         bool
		wantPath   string
		want       map[string]any
	}{
		{"/v1/completions", `{"model":"m","prompt":"def f(x):\n","suffix":"\n  return x\n","max_tokens":8,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`, true, "/infill",
			map[string]any{"model": "m", "input_prefix": "def f(x):\n", "input_suffix": "\n  return x\n", "prompt": "", "n_predict": 8.0, "temperature": 0.0, "stream": true}},
		{"/llama/v1/completions/", `{"model":"m","prompt":"a","suffix":"b","n":1}`, true, "/llama/infill",
			map[string]any{"model": "m", "input_prefix": "a", "input_suffix": "b", "prompt": ""}},
		{"/v1/completions", `{"model":"m","prompt":["a","b"],"suffix":"c"}`, false, "", nil}, // several prompts
		{"/v1/completions", `{"model":"m","prompt":"a","suffix":"c","n":2}`, false, "", nil},
		{"/v1/completions", `{"model":"m","prompt":"a","suffix":"c","echo":true}`, false, "", nil},
		{"/v1/completions", `not json`, false, "", nil},
	} {
		req := &http.Request{Method: "POST", URL: &url.URL{Scheme: "http", Host: "h:8080", Path: tt.path}, Header: http.Header{}}
		r, ok := ToInfill(req, []byte(tt.body))
		if ok != tt.ok {
			t.Errorf("ToInfill(%s) ok = %v, want %v", tt.body, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		b, _ := io.ReadAll(r.Body)
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(tt.want)
		if r.URL.Path != tt.wantPath || !bytes.Equal(gb, wb) || r.ContentLength != int64(len(b)) {
			t.Errorf("ToInfill(%s %s) = %s %s, want %s %s", tt.path, tt.body, r.URL.Path, gb, tt.wantPath, wb)
		}
		if again, _ := r.GetBody(); again == nil {
			t.Errorf("ToInfill(%s): no GetBody", tt.body)
		}
	}
}

func TestFromInfill(t *testing.T) {
	stream := func(body string) string {
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(body))}
		b, err := io.ReadAll(FromInfill(res, "m", 1<<10).Body)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
	out := stream("data: {\"index\":0,\"content\":\" Cpp\",\"stop\":false,\"tokens_predicted\":1,\"tokens_evaluated\":13}\n\n" +
		"data: {\"index\":0,\"content\":\"\",\"stop\":true,\"model\":\"fim\",\"stop_type\":\"limit\",\"tokens_predicted\":2,\"tokens_evaluated\":13,\"timings\":{\"cache_n\":12}}\n\n")
	events := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	if len(events) != 3 || events[2] != "data: [DONE]" || !strings.Contains(events[0], `"text":" Cpp","finish_reason":null`) ||
		!strings.Contains(events[1], `"finish_reason":"length"`) || !strings.Contains(events[1], `"usage":{"prompt_tokens":13,"completion_tokens":2,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":12}}`) {
		t.Errorf("FromInfill stream = %q", out)
	}
	if out := stream("data: {\"index\":0,\"content\":\"a\",\"stop\":false}\n\n"); strings.Contains(out, "[DONE]") {
		t.Errorf("a stream cut before its last event gained a [DONE]: %q", out)
	}
	if out := stream("data: {\"error\":{\"code\":500,\"message\":\"m\"}}\n\n"); out != "data: {\"error\":{\"code\":500,\"message\":\"m\"}}\n\n" {
		t.Errorf("an error event = %q, want it as the server sent it", out)
	}
	if out := stream("data: " + strings.Repeat("x", 2<<10) + "\n\n"); !strings.HasPrefix(out, "error: ") {
		t.Errorf("a line over the bound = %q, want an error", out)
	}

	whole := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"index":0,"content":" CppToMap","stop":true,"model":"fim","stop_type":"eos","tokens_predicted":2,"tokens_evaluated":13}`))}
	b, _ := io.ReadAll(FromInfill(whole, "m", 1<<10).Body)
	if !strings.Contains(string(b), `"text":" CppToMap","finish_reason":"stop"`) || !strings.Contains(string(b), `"model":"fim"`) || !strings.Contains(string(b), `"prompt_tokens":13`) {
		t.Errorf("FromInfill whole = %s", b)
	}
	failed := &http.Response{StatusCode: 501, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"error":{}}`))}
	if b, _ := io.ReadAll(FromInfill(failed, "m", 1<<10).Body); string(b) != `{"error":{}}` {
		t.Errorf("FromInfill of a 501 changed its body: %s", b)
	}
}

// TestFromInfillBound: /infill's answer to a stream that came whole, as
// JSON, was read whole however long: 96 MiB of text allocated 620 MiB
// (a stream's caller saw 448 MiB of heap at the peak before its line
// bound refused the answer). It is read as a whole answer is, to 32 MiB,
// and fails with ErrBodyTooLarge past it (74 MiB at the peak).
func TestFromInfillBound(t *testing.T) {
	body := io.MultiReader(strings.NewReader(`{"index":0,"stop":true,"content":"`), io.LimitReader(xs{}, 96<<20), strings.NewReader(`"}`))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := FromInfill(&http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(body)}, "m", 1<<10)
	_, err := io.Copy(io.Discard, res.Body)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("FromInfill(96 MiB answer) read error = %v, want ErrBodyTooLarge", err)
	}
	// Some 80 MiB (150 under -race) for 32 MiB read.
	if got := (after.TotalAlloc - before.TotalAlloc) >> 20; got > 256 {
		t.Errorf("FromInfill(96 MiB answer) allocated %d MiB, want at most 256", got)
	}
}

// xs reads as endless "x".
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestFromInfillOlderFields: builds before stop_type (and ik_llama.cpp)
// say a cut at the token limit with stopped_limit; an answer that
// evaluated no prompt token and made nothing (ik_llama.cpp's /infill,
// which ignores input_prefix and input_suffix) is refused, streamed or
// not.
func TestFromInfillOlderFields(t *testing.T) {
	res := func(ct, body string) *http.Response {
		return FromInfill(&http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(strings.NewReader(body))}, "m", 1<<10)
	}
	b, err := io.ReadAll(res("text/event-stream", "data: {\"content\":\"a\",\"stop\":false,\"tokens_evaluated\":13}\n\n"+
		"data: {\"content\":\"\",\"stop\":true,\"stopped_limit\":true,\"tokens_predicted\":1,\"tokens_evaluated\":13}\n\n").Body)
	if err != nil || !strings.Contains(string(b), `"finish_reason":"length"`) {
		t.Errorf("stopped_limit: %q, %v; want finish length", b, err)
	}
	ignored := `{"content":"","stop":true,"tokens_predicted":0,"tokens_evaluated":0,"stopped_eos":false,"stopped_limit":false}`
	if b, err := io.ReadAll(res("text/event-stream", "data: "+ignored+"\n\n").Body); err != ErrInfillIgnored || len(b) != 0 {
		t.Errorf("ignored input, streamed: %q, %v; want nothing and ErrInfillIgnored", b, err)
	}
	r := res("application/json", ignored)
	b, _ = io.ReadAll(r.Body)
	if r.StatusCode != http.StatusBadRequest || r.Header.Get("X-Should-Retry") != "false" || !strings.Contains(string(b), `"code":"infill_input_ignored"`) {
		t.Errorf("ignored input, not streamed: %d %q; want a 400 infill_input_ignored, not sent again", r.StatusCode, b)
	}
	// An empty answer of a prompt evaluated is an answer.
	if b, err := io.ReadAll(res("text/event-stream", "data: {\"content\":\"\",\"stop\":true,\"tokens_predicted\":0,\"tokens_evaluated\":9}\n\n").Body); err != nil || !strings.Contains(string(b), "[DONE]") {
		t.Errorf("empty answer: %q, %v; want it and [DONE]", b, err)
	}
}

// TestLlamaCppRefused: llama.cpp's refusals under 500 are told by their
// message, their body kept for the caller.
func TestLlamaCppRefused(t *testing.T) {
	for _, tt := range []struct {
		status      int
		body, field string
		want        bool
	}{
		{500, `{"error":{"code":500,"message":"Unsupported param: suffix","type":"server_error"}}`, "suffix", true},
		{500, `{"error":{"code":500,"message":"Only no echo is supported","type":"server_error"}}`, "echo", true},
		{500, `{"error":{"code":500,"message":"Only no echo is supported","type":"server_error"}}`, "suffix", false},
		{500, `{"error":{"message":"out of memory"}}`, "suffix", false},
		{200, `Unsupported param: suffix`, "suffix", false},
		{500, `{"error":{"message":"Unsupported param: suffix"}}`, "best_of", false},
	} {
		res := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := LlamaCppRefused(res, tt.field); got != tt.want {
			t.Errorf("LlamaCppRefused(%d %s, %s) = %v, want %v", tt.status, tt.body, tt.field, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body {
			t.Errorf("body after LlamaCppRefused = %q, want it kept", b)
		}
	}
	res := AsRequestError(&http.Response{StatusCode: 500, Header: http.Header{"Server": {"ik_llama.cpp"}}})
	if res.StatusCode != 400 || res.Header.Get("X-Should-Retry") != "false" || res.Header.Get("Server") != "ik_llama.cpp" {
		t.Errorf("AsRequestError = %d %v", res.StatusCode, res.Header)
	}
}

// TestLlamaCppRequestError: a request error answered with 500 by
// llama.cpp's server or ik_llama.cpp is told by its message; another
// server's 500, or another message, is not.
func TestLlamaCppRequestError(t *testing.T) {
	const image = `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`
	for _, tt := range []struct {
		server string
		status int
		body   string
		want   bool
	}{
		{"llama.cpp", 500, image, true},
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"server_error"}}`, true},
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"ik_llama.cpp does not support 'previous_response_id'.","type":"server_error"}}`, true},
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"Unable to generate parser for this template. Automatic parser generation failed: JSON schema conversion failed:\nPattern must start with '^' and end with '$'","type":"server_error"}}`, true},
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`, true}, // ikawrakow/ik_llama.cpp#778
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"Either \"json_schema\" or \"grammar\" can be specified, but not both","type":"server_error"}}`, true},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal","type":"server_error"}}`, true}, // ggml-org/llama.cpp#25510
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Failed to parse tools: [json.exception.type_error.302] type must be string, but is null; tools = []","type":"server_error"}}`, true},                                                                                                     // VirtusLab/llm-tools-mcp#51
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"Failed to parse messages: Missing 'role' in message: {\"content\":\"hi\"}","type":"server_error"}}`, true},
		{"ik_llama.cpp", 500, `{"error":{"code":500,"message":"Invalid tool_choice: any","type":"server_error"}}`, true},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"invalid type for \"enable_thinking\" (expected boolean, got string)","type":"server_error"}}`, true},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Invalid url format: data:application/pdf;base64","type":"server_error"}}`, true}, // handle_media
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Invalid url value","type":"server_error"}}`, true},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"url must be base64 encoded","type":"server_error"}}`, true},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Failed to download image","type":"server_error"}}`, false}, // the image host's or the network's
		{"llama.cpp", 500, `{"error":{"code":500,"message":"llama_decode failed","type":"server_error"}}`, false},
		{"uvicorn", 500, image, false},
		{"", 500, image, false},
		{"llama.cpp", 503, image, false},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"unavailable_error"}}`, false},
		{"llama.cpp", 500, `not json: Only one completion choice is allowed`, false},
	} {
		res := &http.Response{StatusCode: tt.status, Header: http.Header{"Server": {tt.server}}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if got := LlamaCppRequestError(res); got != tt.want {
			t.Errorf("LlamaCppRequestError(%s %d %s) = %v, want %v", tt.server, tt.status, tt.body, got, tt.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tt.body {
			t.Errorf("body after LlamaCppRequestError = %q, want it kept", b)
		}
	}
}
