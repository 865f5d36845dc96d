package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
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
