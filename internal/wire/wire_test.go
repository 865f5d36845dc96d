package wire

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func response(status int, header http.Header, body []byte) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(body))}
}

// TestBoundErrorBody: a JSON error object passes whole; a line of text
// becomes an error object whose message it is; a body over the bound, or
// one whose "error" openai-go would not decode (a number), becomes an
// error object holding its first KiB; one that says
// its error in a shape of its own (Ollama's and LM Studio's string,
// FastAPI's and KoboldCpp's "detail") becomes an error object of its
// message and name.
func TestBoundErrorBody(t *testing.T) {
	tests := []struct {
		name, body string
		cut        string // "" when passed whole or rewritten without a bound hit
		whole      bool
	}{
		{"error object", `{"error":{"message":"bad model","type":"invalid_request_error"}}`, "", true},
		{"a number", `{"error":500}`, "", false},
		{"text, which openai-go would report with no message", "upstream timed out", "", false},
		{"over the bound", `{"error":{"message":"` + strings.Repeat("x", maxErrorBody) + `"}}`, "error body of status 500 over 65536 bytes", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := response(500, nil, []byte(tt.body))
			if cut := BoundErrorBody(res); cut != tt.cut {
				t.Errorf("cut = %q, want %q", cut, tt.cut)
			}
			got, _ := io.ReadAll(res.Body)
			if tt.whole != (string(got) == tt.body) {
				t.Errorf("body passed whole: %v, want %v (%.80s)", string(got) == tt.body, tt.whole, got)
			}
			if msg, ok := textLine([]byte(tt.body)); ok {
				if m := gjson.GetBytes(got, "error.message").String(); m != msg {
					t.Errorf("rewritten body = %.200s, want an error object whose message is the text", got)
				}
			} else if !tt.whole && (!strings.Contains(string(got), `"type":"invalid_error_body"`) || len(got) > errorHead+200) {
				t.Errorf("rewritten body = %.200s, want an error object of at most its first KiB", got)
			}
		})
	}
}

// TestLimitBody: a body of exactly the bound reads whole; one byte more
// fails with ErrBodyTooLarge.
func TestLimitBody(t *testing.T) {
	for _, n := range []int64{maxWholeBody, maxWholeBody + 1} {
		got, err := io.Copy(io.Discard, LimitBody(io.NopCloser(io.LimitReader(zeros{}, n))))
		if want := n <= maxWholeBody; (err == nil) != want || got > maxWholeBody {
			t.Errorf("%d bytes: read %d, err %v", n, got, err)
		}
		if n > maxWholeBody && !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("%d bytes: err %v, want ErrBodyTooLarge", n, err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestDecompress: a gzip body the transport left as it came is decoded,
// its headers then saying so; one cut after its magic bytes is an
// unexpected EOF; an empty one is empty, and a plain one labelled gzip (a
// relay's stale header) is read as it came; one the transport decoded is
// untouched.
func TestDecompress(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte("data: {}\n\n"))
	_ = w.Close()
	res := response(200, http.Header{"Content-Encoding": {"gzip"}, "Content-Length": {"30"}}, gz.Bytes())
	Decompress(res)
	if got, err := io.ReadAll(res.Body); err != nil || string(got) != "data: {}\n\n" {
		t.Errorf("gzip body read %q, %v", got, err)
	}
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Length") != "" || res.ContentLength != -1 || !res.Uncompressed {
		t.Errorf("decoded body's headers %v, length %d, Uncompressed %v", res.Header, res.ContentLength, res.Uncompressed)
	}
	res = response(200, http.Header{"Content-Encoding": {"gzip"}}, gz.Bytes()[:5])
	Decompress(res)
	if _, err := io.ReadAll(res.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("gzip body cut short: err %v, want io.ErrUnexpectedEOF", err)
	}
	for _, plain := range []string{"", "d", "data: {}\n\n"} {
		res = response(200, http.Header{"Content-Encoding": {"gzip"}}, []byte(plain))
		Decompress(res)
		if got, err := io.ReadAll(res.Body); err != nil || string(got) != plain {
			t.Errorf("plain body %q labelled gzip read %q, %v", plain, got, err)
		}
	}
	res = response(200, http.Header{"Content-Encoding": {"gzip"}}, []byte("plain"))
	res.Uncompressed = true
	Decompress(res)
	if got, _ := io.ReadAll(res.Body); string(got) != "plain" {
		t.Errorf("a body the transport decoded read %q", got)
	}
}

// TestAskGzip: a request that names no encoding asks for gzip; one that
// names its own, or asks for a range, is sent as it is.
func TestAskGzip(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "http://h/v1/chat/completions", nil)
	if AskGzip(req); req.Header.Get("Accept-Encoding") != "gzip" {
		t.Errorf("AskGzip: Accept-Encoding %q, want gzip", req.Header.Get("Accept-Encoding"))
	}
	for _, h := range []string{"Accept-Encoding", "Range"} {
		req := httptest.NewRequest(http.MethodPost, "http://h/v1/chat/completions", nil)
		req.Header.Set(h, "identity")
		if AskGzip(req); req.Header.Get("Accept-Encoding") == "gzip" {
			t.Errorf("AskGzip of a request with %s: %v, want it as it is", h, req.Header)
		}
	}
}

// TestClosingServers: only a close after a short idle marks a server; the
// nil set knows none.
func TestClosingServers(t *testing.T) {
	var c ClosingServers
	c.Learn("a:1", 5*time.Second) // a keep-alive timeout ran out
	c.Learn("b:2", time.Millisecond)
	if c.Closes("a:1") || !c.Closes("b:2") {
		t.Errorf("Closes(a) = %v, Closes(b) = %v; want false, true", c.Closes("a:1"), c.Closes("b:2"))
	}
	var none *ClosingServers
	none.Learn("b:2", time.Millisecond)
	if none.Closes("b:2") {
		t.Error("the nil set learnt a server")
	}
}

// TestErrorsOfOwnShape: an error said in a shape of its own reaches
// openai-go as an error object of its message and name, which it decodes
// (before: the body as the message, "not valid JSON", or no message at
// all).
func TestErrorsOfOwnShape(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"model \"llama9\" not found, try pulling it first"}`:                                           `{"error":{"message":"model \"llama9\" not found, try pulling it first"}}`,
		`{"error":"No models loaded. Please load a model in the developer page or use the 'lms load' command."}`: `{"error":{"message":"No models loaded. Please load a model in the developer page or use the 'lms load' command."}}`,
		`{"detail": {"msg": "Server is busy; please try again later.", "type": "service_unavailable"}}`:          `{"error":{"message":"Server is busy; please try again later.","type":"service_unavailable"}}`,
		`{"detail":"Not Found"}`: `{"error":{"message":"Not Found"}}`,
		`{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required"}]}`: `{"error":{"message":"body.messages: Field required","type":"missing"}}`,
		`{"detail":[{"type":"extra_forbidden","loc":["body","store"],"msg":"Extra inputs are not permitted","input":false},{"type":"extra_forbidden","loc":["body","max_completion_tokens"],"msg":"Extra inputs are not permitted","input":8192}]}`: `{"error":{"message":"body.store: Extra inputs are not permitted; body.max_completion_tokens: Extra inputs are not permitted","type":"extra_forbidden"}}`,
		`{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","tools",0,"function","required"],"msg":"Extra inputs are not permitted","input":["content"]}]},"type":"invalid_request_error","param":null,"code":null}`:    `{"error":{"message":"body.tools.0.function.required: Extra inputs are not permitted","type":"invalid_request_error"}}`,
		`{"detail":[{"loc":["body"],"input":{}}]}`: `{"detail":[{"loc":["body"],"input":{}}]}`,
		`{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`: `{"error":{"message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError"}}`,
		`{"object":"error","message":"This model's maximum context length is 4096 tokens.","code":40303}`:                       `{"error":{"code":"40303","message":"This model's maximum context length is 4096 tokens."}}`,
		`{"message":"model ` + "`x`" + ` was not found"}`:                                                                       `{"error":{"message":"model ` + "`x`" + ` was not found"}}`,
		`{"message":{"text":"not a message"}}`:                                                                                  `{"message":{"text":"not a message"}}`,
		`{"error":"Received error from databricks-model-serving","external_model_message":{"error_code":"INVALID_PARAMETER_VALUE","message":"INVALID_PARAMETER_VALUE: Missing required embeddings parameter: 'input'"}}`: `{"error":{"message":"INVALID_PARAMETER_VALUE: Missing required embeddings parameter: 'input'","type":"INVALID_PARAMETER_VALUE"}}`,
		`{"error":"Received error from openai","external_model_message":{"error":{"message":"The response was filtered","type":null,"code":"content_filter"}}}`:                                                          `{"error":{"message":"The response was filtered"}}`,
		`{"error":"Received error from openai","external_model_message":{"note":"none"}}`:                                                                                                                                `{"error":{"message":"Received error from openai"}}`,
		`{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`:                                                                                           `{"error":{"code":"2005","message":"Failed to get response from provider"}}`,
		`"Invalid token"`: `{"error":{"message":"Invalid token"}}`,
		`{"errors":[{"code":"token_quota_reached","message":"Request of 1 token(s) from quota was rejected","more_info":"https://cloud.ibm.com/apidocs/watsonx-ai#text-chat"}],"trace":"ebeec5ab40585bab417b08fd0b3282f0","status_code":403}`: `{"error":{"code":"token_quota_reached","message":"Request of 1 token(s) from quota was rejected"}}`,
		`{"success":false,"errors":[{"code":7003,"message":"Could not route to /client/v4/accounts/x/ai/run, perhaps your object identifier is invalid?"}],"messages":[],"result":null}`:                                                      `{"error":{"code":"7003","message":"Could not route to /client/v4/accounts/x/ai/run, perhaps your object identifier is invalid?"}}`,
		`{"errors":[]}`: `{"errors":[]}`,
		`{"status":429,"title":"Too Many Requests"}`:                                            `{"error":{"message":"Too Many Requests"}}`,
		`{"status":404,"title":"Not Found","detail":"Function 'f': Not found for account 'a'"}`: `{"error":{"message":"Function 'f': Not found for account 'a'"}}`,
		`{"title":"Too Many Requests"}`:                                                         `{"title":"Too Many Requests"}`,
		`{"html-message": "Model Krutrim-spectre-v9 not found"}`:                                `{"error":{"message":"Model Krutrim-spectre-v9 not found"}}`,
		`{"html-message": ""}`:                                                                  `{"html-message": ""}`,
		`{"fault":{"faultstring":"Gateway Timeout","detail":{"errorcode":"messaging.adaptors.http.flow.GatewayTimeout"}}}`: `{"error":{"code":"messaging.adaptors.http.flow.GatewayTimeout","message":"Gateway Timeout"}}`,
		`{"fault":{"faultstring":"Invalid ApiKey"}}`: `{"error":{"message":"Invalid ApiKey"}}`,
		`{"fault":{"faultstring":""}}`:               `{"fault":{"faultstring":""}}`,
	} {
		res := response(503, nil, []byte(body))
		if cut := BoundErrorBody(res); cut != "" {
			t.Errorf("%s: cut %q", body, cut)
		}
		if got, _ := io.ReadAll(res.Body); string(got) != want {
			t.Errorf("%s: became %s, want %s", body, got, want)
		}
	}
}

func TestFastChatServerError(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, `{"object":"error","message":"**NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR REFRESH THIS PAGE.**\n\n(CUDA out of memory.)","code":50002}`, true},
		{400, `{"object":"error","message":"Cannot connect to host localhost:21002","code":50001}`, true},
		{400, `{"object":"error","message":"This model's maximum context length is 4096 tokens.","code":40303}`, false},
		{400, `{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":50002}`, false}, // a type: not FastChat's
		{500, `{"object":"error","message":"CUDA out of memory.","code":50002}`, false},                                           // a server error already
		{400, `{"error":{"message":"bad","code":"50002"}}`, true},
	} {
		res := response(tc.status, nil, []byte(tc.body))
		BoundErrorBody(res)
		if got := FastChatServerError(res); got != tc.want {
			t.Errorf("FastChatServerError(%d %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
	}
}

func TestBifrostUpstreamFailure(t *testing.T) {
	const closed = `{"is_bifrost_error":false,"error":{"error":"the server closed connection before returning the first response byte. Make sure the server returns 'Connection: close' response header before closing the connection","message":"failed to execute HTTP request to provider API"},"extra_fields":{"provider":"openai","model_requested":"tiny","request_type":"chat_completion"}}`
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"upstream closed (recorded live)", 400, closed, true},
		{"a request error of Bifrost's", 400, `{"is_bifrost_error":false,"status_code":400,"error":{"message":"invalid request format: Mismatch type []string with value string"}}`, false},
		{"the same message from another server", 400, `{"error":{"message":"failed to execute HTTP request to provider API"}}`, false},
		{"a stream's upstream failure, already 500", 500, closed, false},
	} {
		res := response(tc.status, nil, []byte(tc.body))
		if got := BifrostUpstreamFailure(res); got != tc.want {
			t.Errorf("%s: BifrostUpstreamFailure = %v, want %v", tc.name, got, tc.want)
		}
		if body, _ := ErrorBody(res); string(body) != tc.body {
			t.Errorf("%s: body after = %q, want it put back", tc.name, body)
		}
	}
	if res := AsGatewayError(response(400, nil, []byte(closed))); res.StatusCode != 502 {
		t.Errorf("AsGatewayError status = %d, want 502", res.StatusCode)
	}
}

func TestCloudflareUpstreamFailure(t *testing.T) {
	const noResponse = `{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"the provider did not answer (cloudflare/ai#436)", 400, noResponse, true},
		{"the gateway's own refusal", 401, `{"success":false,"result":[],"messages":[],"error":[{"code":2009,"message":"Unauthorized"}]}`, false},
		{"another code under 400", 400, `{"success":false,"result":[],"messages":[],"error":[{"code":2001,"message":"Invalid request"}]}`, false},
		{"the provider's own 400, passed through", 400, `{"error":{"message":"Invalid model","type":"invalid_request_error","param":null,"code":null}}`, false},
	} {
		res := response(tc.status, nil, []byte(tc.body))
		_ = BoundErrorBody(res)
		if got := CloudflareUpstreamFailure(res); got != tc.want {
			t.Errorf("%s: CloudflareUpstreamFailure = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPDRouterError: the SGLang gateway's prefill-decode error line gives
// the worker's error, whatever shape the worker wrote it in; any other
// body, a line of the same start that is not the gateway's among them,
// passes whole.
func TestPDRouterError(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`data: {'error': {"message":{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400},"status":400}}`,
			`{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`},
		{`data: {'error': {"message":{"error":{"message":"too long","type":"BadRequestError"}},"status":400}}`,
			`{"error":{"message":"too long","type":"BadRequestError"}}`},
		{`data: {'error': {"message":"Internal Server Error","status":500}}`, `{"error":{"message":"Internal Server Error"}}`},
		{`data: {'error': {"message":"no status"}}`, `data: {'error': {"message":"no status"}}`},
		{`{"error":{"message":"bad model"}}`, `{"error":{"message":"bad model"}}`},
		{`data: {'error': not json}`, `data: {'error': not json}`},
	} {
		if got := string(pdRouterError([]byte(tt.body))); got != tt.want {
			t.Errorf("pdRouterError(%s) = %s, want %s", tt.body, got, tt.want)
		}
	}
}
