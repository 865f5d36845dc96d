package wire

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// How much of a body openai-go may read.
//
// openai-go reads an error body, and a non-streaming response, whole
// (io.ReadAll) before it returns: a server, or a proxy, that sends a
// body without end, or a small gzip body that inflates to gigabytes,
// would take the program's memory. The exchange bounds both. An error
// body over maxErrorBody is cut: openai-go then builds its *openai.Error
// (the status kept) from an error object whose message holds the body's
// first KiB, and tokenpace ends the call with a KindTooLarge *StreamError
// that wraps it. A non-streaming response over maxWholeBody fails with
// ErrBodyTooLarge, which tokenpace reports as KindTooLarge too.
const (
	maxErrorBody = 64 << 10
	maxWholeBody = 32 << 20
	errorHead    = 1 << 10
)

// ErrBodyTooLarge is the read error of a non-streaming response longer
// than 32 MiB (see LimitBody).
var ErrBodyTooLarge = fmt.Errorf("tokenpace: response body longer than %d bytes", maxWholeBody)

// errorFields are the members of an error object that tell what kind of
// error a server answered.
type errorFields struct {
	Message, Type string
	Code          any
}

// errorOf returns the error object of res, an answer of status whose
// body BoundErrorBody bounded already (an error object of its own, as
// it made it), and puts the body back; ok is false for another status, no
// body, or a body that is no such object.
func errorOf(res *http.Response, status int) (e errorFields, ok bool) {
	if res == nil || res.Body == nil || res.StatusCode != status {
		return e, false
	}
	body, err := ErrorBody(res)
	var v struct{ Error *errorFields }
	if err != nil || json.Unmarshal(body, &v) != nil || v.Error == nil {
		return e, false
	}
	return *v.Error, true
}

// says reports whether msg holds one of phrases.
func says(msg string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// ErrorBody reads the error body of res, bounded already (BoundErrorBody)
// or up to that bound and a little more (see FailedDependency, which reads
// it first), and puts it back for the next reader: what was read, then
// the read's error, if any, so that the bound still says the body was
// unreadable.
func ErrorBody(res *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+errorHead))
	_ = res.Body.Close()
	var rest io.Reader = bytes.NewReader(body)
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	res.Body = io.NopCloser(rest)
	return body, err
}

// BoundErrorBody reads the error body of res, up to maxErrorBody, and
// puts it back for openai-go to read. A longer body is cut: res then
// holds an error object with its first KiB, and cut says why. So does a
// body that is not JSON, or whose "error" is neither an object nor a
// string, which openai-go would not decode, losing the status (cut is
// then empty). One line of text, which openai-go would report with no
// message, is the message of an error object of its own (see textLine);
// so is the message of a web page or of lines of text (see pageMessage),
// whose message openai-go would leave empty. A body that says its error in a shape of its own (see
// errorOfOwnShape) becomes an error object of its message, name and code. A body that is an array whose first item holds the error
// object, as Gemini's OpenAI endpoint sends its errors
// ([{"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT"}}]:
// cyberchitta/openai_ex#126, Simpleyyt/ai-manus#101), is that item, whose
// message openai-go would otherwise lose; so is the worker's error inside
// the line the SGLang gateway writes in prefill-decode mode (see
// pdRouterError); and so is the object inside a body that is that
// object encoded as a JSON string (see objectInString), and the body a
// relay put as text into its error's message (see bodyInMessage and
// providerError).
func BoundErrorBody(res *http.Response) (cut string) {
	head, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody+1))
	_ = res.Body.Close()
	if err == nil && len(head) <= maxErrorBody {
		head = providerError(head) // the upstream's body, read as if it answered
	}
	if first := gjson.GetBytes(head, "0"); err == nil && len(head) <= maxErrorBody &&
		first.IsObject() && gjson.Get(first.Raw, "error").IsObject() && bytes.HasPrefix(bytes.TrimSpace(head), []byte("[")) {
		head = []byte(first.Raw)
	}
	if err == nil && len(head) <= maxErrorBody {
		head = bodyInMessage(objectInString(pdRouterError(head)))
	}
	switch {
	case err != nil:
		cut = fmt.Sprintf("error body of status %d unreadable", res.StatusCode)
	case len(head) > maxErrorBody:
		cut = fmt.Sprintf("error body of status %d over %d bytes", res.StatusCode, maxErrorBody)
	default:
		if msg, name, code, ok := errorOfOwnShape(head); ok {
			// A relay's own shape around an upstream's body put as text
			// into its message: Open WebUI's "detail" holding Ollama's
			// error object, whose message is llama-server's JSON, or
			// an upstream's web page.
			if page, ok := pageMessage([]byte(msg)); ok && isPage(bytes.TrimSpace([]byte(msg))) {
				msg = page
			}
			body := bodyInMessage(errorObject(msg, name, code))
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			res.Header.Set("Content-Type", "application/json")
			return ""
		}
		msg, ok := textLine(head)
		if ok && isPage(bytes.TrimSpace(head)) || !ok {
			msg, ok = pageMessage(head)
		}
		if ok {
			body := errorObject(hideSecrets(msg), "", "")
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			res.Header.Set("Content-Type", "application/json")
			return ""
		}
		if raw := gjson.GetBytes(head, "error").Raw; raw == "" || raw == "null" || raw[0] == '{' && gjson.Valid(raw) {
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(head)), int64(len(head))
			return ""
		}
	}
	head = head[:min(len(head), errorHead)]
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1] // a rune cut at the end
	}
	note := cut
	if note == "" {
		note = "error body not valid JSON"
	}
	body := errorObject(string(head)+" … ("+note+")", "invalid_error_body", "")
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	res.Header.Set("Content-Type", "application/json")
	return cut
}

// textLine returns head as a message when it is one line of text, not
// JSON nor an event's data line (which openai-go reads as the JSON after
// its "data:"), of at most errorHead bytes: the body of an error a proxy answers
// itself, which openai-go, finding no JSON, reports with no message. The
// Gateway API Inference Extension's endpoint picker (llm-d's inference
// gateway) has Envoy answer "inference gateway: ServiceUnavailable -
// failed to find candidate pods for serving the request" so
// (kubernetes-sigs/gateway-api-inference-extension, BuildErrResponse: the
// error's string as an ImmediateResponse's body); Envoy's own replies
// ("no healthy upstream", "upstream request timeout") are alike.
func textLine(head []byte) (string, bool) {
	t := bytes.TrimSpace(head)
	if len(t) == 0 || len(t) > errorHead || !utf8.Valid(t) || bytes.ContainsAny(t, "\r\n") || gjson.ValidBytes(t) ||
		bytes.HasPrefix(t, []byte("data:")) {
		return "", false
	}
	return string(t), true
}

// objectInString returns the text of head when head is a JSON string
// whose text is a JSON object: an error body encoded twice, as MLC LLM's
// server sends every error it answers itself (a JSONResponse of
// ErrorResponse(...).model_dump_json(), a string, so
// "{\"object\":\"error\",\"message\":…,\"code\":400}": mlc-ai/mlc-llm
// python/mlc_llm/protocol/error_protocol.py, create_error_response), whose
// message openai-go, finding no object, loses. Any other head is
// returned as it is.
func objectInString(head []byte) []byte {
	s := gjson.ParseBytes(head)
	if s.Type != gjson.String || !gjson.Valid(s.Str) || !gjson.Parse(s.Str).IsObject() {
		return head
	}
	return []byte(s.Str)
}

// pdRouterError returns the worker's error inside head, the error body of
// the SGLang model gateway in prefill-decode mode, or head itself for any
// other body. For a stream, the gateway answers a decode worker's error
// status with that status and one line it builds itself,
// data: {'error': {"message": <the worker's body>, "status": <its status>}},
// a key in single quotes, so not JSON (sgl-project/sglang
// sgl-router/src/routers/http/pd_router.rs, handle_decode_error_response):
// openai-go, which strips the data: prefix, reads no message from it. The
// worker's body is JSON (an error object, or SGLang's error at the top
// level) or, when it was not, the gateway holds its text: an error object
// of that text is returned.
func pdRouterError(head []byte) []byte {
	const prefix = "{'error': "
	b := bytes.TrimSpace(head)
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("data:")))
	if !bytes.HasPrefix(b, []byte(prefix)) || !bytes.HasSuffix(b, []byte("}")) {
		return head
	}
	inner := b[len(prefix) : len(b)-1]
	if !gjson.ValidBytes(inner) || gjson.GetBytes(inner, "status").Type != gjson.Number {
		return head
	}
	switch m := gjson.GetBytes(inner, "message"); {
	case m.IsObject():
		return []byte(m.Raw)
	case m.Type == gjson.String:
		return errorObject(m.Str, "", "")
	}
	return head
}

// errorOfOwnShape returns the message and the name of an error body, head,
// whole and JSON, that says its error in a shape of its own, which
// openai-go would not decode (it reads the "error" object): an "error"
// that is a string, as Ollama, LM Studio and llama-swap send ({"error":
// "model \"x\" not found"}), or, from a Databricks serving endpoint, the
// model's own error beside such a string (see externalModelError); or no
// "error" but a "detail", as Python
// servers built on FastAPI send it, a string ({"detail": "Not Found"}) or
// KoboldCpp's object ({"detail": {"msg": "Server is busy; please try
// again later.", "type": "service_unavailable"}}) or vllm-mlx's (see
// detailObject) or FastAPI's list of
// validation errors, as Mistral's API answers a field its schema
// forbids, alone or as the "message" of an error at the top level (see
// validationErrors); or no "error" but a
// "message" at the top level, with the error's "type" beside it, as
// TensorRT-LLM's trtllm-serve sends its errors, and Aphrodite and vLLM
// did before they nested them ({"object": "error", "message": …, "type":
// "BadRequestError", "param": null, "code": 400}), or with a code alone,
// as FastChat does ({"object": "error", "message": …, "code": 40303}; see
// FastChatServerError), or alone, as mistral.rs does ({"message": "model
// `x` was not found"}); or an
// "error" that is an array of objects with a code and a message, as
// Cloudflare's API envelope holds them, AI Gateway's own errors among
// them ({"success": false, "result": [], "messages": [], "error":
// [{"code": 2005, "message": "Failed to get response from provider"}]}:
// cloudflare/ai#436), whose first is the error and its code, as a string,
// code; or no "error" but an "errors" array of such objects, whose first
// is the error, as IBM watsonx.ai answers every request it refuses
// ({"errors": [{"code": "token_quota_reached", "message": "Request of 1
// token(s) from quota was rejected", "more_info": …}], "trace": …,
// "status_code": 403}: its Java SDK's WatsonxError) and Cloudflare's v4
// API its own ({"success": false, "errors": [{"code": 7003, "message":
// …}], …}); or a body that is a JSON string and nothing else, the message
// itself, as SiliconFlow answers a key it does not know ("Invalid token",
// 401) or a request it forbids ("Forbidden", 403: docs.siliconflow.cn,
// error codes); or a problem-details body (RFC 9457) without its
// "detail", whose "title" beside a numeric "status" is the message, as
// NVIDIA's hosted API answers its rate limit ({"status":429,"title":"Too
// Many Requests"}; a "detail", when it has one, is read as FastAPI's is);
// or, from Ola Krutrim's cloud, no "error" but an "html-message", a string
// and the whole message (Portkey-AI/gateway src/providers/krutrim/
// chatComplete.ts reads it so from any status other than 200); or, from
// Google's Apigee gateway, a "fault" whose "faultstring" is the message
// and whose "detail"'s "errorcode" names it, the shape of every fault its
// runtime and its policies answer, its target's timeout among them
// ({"fault": {"faultstring": "Gateway Timeout", "detail": {"errorcode":
// "messaging.adaptors.http.flow.GatewayTimeout"}}}: docs.apigee.com,
// troubleshoot/runtime/504-gateway-timeout).
// ok is false for any other body.
func errorOfOwnShape(head []byte) (msg, name, code string, ok bool) {
	if !gjson.ValidBytes(head) {
		return "", "", "", false
	}
	if s := gjson.ParseBytes(head); s.Type == gjson.String {
		return s.Str, "", "", s.Str != ""
	}
	if e := gjson.GetBytes(head, "error"); e.Exists() {
		if msg, code, ok := firstError(e); ok {
			return msg, "", code, true
		}
		if e.Type == gjson.String {
			if msg, name, ok := externalModelError(head); ok {
				return msg, name, "", true
			}
		}
		return e.Str, "", "", e.Type == gjson.String
	}
	if msg, code, ok := firstError(gjson.GetBytes(head, "errors")); ok {
		return msg, "", code, true
	}
	switch d := gjson.GetBytes(head, "detail"); {
	case d.Type == gjson.String:
		return d.Str, "", "", true
	case d.IsObject():
		if msg, name, ok := detailObject(d); ok {
			return msg, name, "", true
		}
	case d.IsArray():
		msg, name, ok := validationErrors(d)
		return msg, name, "", ok
	}
	switch m, t := gjson.GetBytes(head, "message"), gjson.GetBytes(head, "type"); {
	case m.IsObject():
		msg, _, ok := validationErrors(m.Get("detail"))
		return msg, t.Str, "", ok
	case m.Type == gjson.String && t.Exists():
		return m.Str, t.Str, "", true
	case m.Type == gjson.String:
		// FastChat's: its code names it; RTP-LLM's: its error_code_str
		// (see RTPLLMRequestError)
		return m.Str, gjson.GetBytes(head, "error_code_str").Str, gjson.GetBytes(head, "code").String(), true
	}
	if t := gjson.GetBytes(head, "title"); t.Type == gjson.String && t.Str != "" && gjson.GetBytes(head, "status").Type == gjson.Number {
		return t.Str, "", "", true // a problem-details body without its detail
	}
	if h := gjson.GetBytes(head, "html-message"); h.Type == gjson.String && h.Str != "" {
		return h.Str, "", "", true // Krutrim's
	}
	if f := gjson.GetBytes(head, "fault.faultstring"); f.Type == gjson.String && f.Str != "" {
		return f.Str, "", gjson.GetBytes(head, "fault.detail.errorcode").Str, true // Apigee's
	}
	return "", "", "", false
}

// detailObject returns the message and the name of d, a FastAPI
// "detail" that is an object: KoboldCpp's, {"msg": …, "type": …}, or
// vllm-mlx's refusal by its busy engine, {"error": "text_generation_busy",
// "message": …} (waybarrios/vllm-mlx vllm_mlx/server.py,
// _raise_engine_busy). ok is false for an object with neither message.
func detailObject(d gjson.Result) (msg, name string, ok bool) {
	for _, k := range [...][2]string{{"msg", "type"}, {"message", "error"}} {
		if m := d.Get(k[0]); m.Type == gjson.String {
			return m.Str, d.Get(k[1]).Str, true
		}
	}
	return "", "", false
}

// firstError returns the message and code of the first error of list, an
// array of error objects (Cloudflare's API envelope, watsonx.ai's errors),
// and false when list holds none with a message.
func firstError(list gjson.Result) (msg, code string, ok bool) {
	first := list.Get("0")
	if !list.IsArray() || first.Get("message").Type != gjson.String {
		return "", "", false
	}
	return first.Get("message").Str, first.Get("code").String(), true
}

// externalModelError returns the message and the name of the model's own
// error in the error body of a Databricks serving endpoint, whose "error"
// is a string of Databricks' own, the same whatever went wrong ("Received
// error from databricks-model-serving"), the model's error beside it in
// "external_model_message": Databricks' shape, {"error_code": …,
// "message": …} (databricks-demos/dbdemos#97; block/goose
// crates/goose/src/providers/databricks.rs reads it), or an OpenAI error
// object of an external OpenAI model, {"error": {"message": …, "type": …,
// "code": …}} (Databricks' agent templates read its code). ok is false
// for a body without one.
func externalModelError(head []byte) (msg, name string, ok bool) {
	ext := gjson.GetBytes(head, "external_model_message")
	if m := ext.Get("message"); m.Type == gjson.String {
		return m.Str, ext.Get("error_code").Str, true
	}
	if e := ext.Get("error"); e.IsObject() && e.Get("message").Type == gjson.String {
		return e.Get("message").Str, e.Get("type").Str, true
	}
	return "", "", false
}

// errorObject returns an OpenAI error body holding message and, if not
// empty, the type name and the code.
func errorObject(message, name, code string) []byte {
	e := map[string]string{"message": message}
	if name != "" {
		e["type"] = name
	}
	if code != "" {
		e["code"] = code
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return b
}

// LimitBody returns body, failing with ErrBodyTooLarge once it has given
// more than 32 MiB: for a non-streaming response, which openai-go reads
// whole.
func LimitBody(body io.ReadCloser) io.ReadCloser { return &limitedBody{ReadCloser: body} }

// limitedBody is a non-streaming response body that fails once it has
// given more than maxWholeBody bytes.
type limitedBody struct {
	io.ReadCloser
	n int64 // bytes given so far
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.n >= maxWholeBody {
		// At the bound: a body that ends here is whole.
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, ErrBodyTooLarge
	}
	if rest := maxWholeBody - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// ObjectsError is the read error of a non-streaming response that holds
// more JSON objects, or more items, than its request's may (see
// LimitObjects). It is an ErrBodyTooLarge (errors.Is).
type ObjectsError struct {
	Limit int
	Items bool // the bound on items, not on all objects
}

func (e *ObjectsError) Error() string {
	if e.Items {
		return fmt.Sprintf("tokenpace: response body of more than %d choices, output items or tools", e.Limit)
	}
	return fmt.Sprintf("tokenpace: response body of more than %d JSON objects", e.Limit)
}

// Is reports whether target is ErrBodyTooLarge.
func (e *ObjectsError) Is(target error) bool { return target == ErrBodyTooLarge }

// itemDepth is the depth of a whole response's choices, output items and
// tools: {"choices": [{…}]}, the response's own object at 0.
const itemDepth = 2

// LimitObjects returns body, a non-streaming JSON response, failing with
// an *ObjectsError once it has given more than limit JSON objects (its
// '{' outside strings), or more than items at the depth of its choices,
// output items and tools. openai-go decodes the whole response at once,
// and each object becomes a choice, an output item or a token: 600 KB of
// empty output items take 800 MiB decoded, some 4 KB each, where an
// object deeper in takes a few hundred bytes. The count is kept as the
// body is read, with no copy of it.
func LimitObjects(body io.ReadCloser, limit, items int) io.ReadCloser {
	return &objectsBody{ReadCloser: body, limit: limit, maxItems: items}
}

// objectsBody is a JSON body that fails once it has given more than
// limit objects, or maxItems at itemDepth.
type objectsBody struct {
	io.ReadCloser
	limit, maxItems int
	n, items        int  // the objects so far, and those at itemDepth
	depth           int  // the objects and arrays open
	in, esc         bool // inside a string; after its backslash
	err             error
}

func (b *objectsBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	for _, c := range p[:n] {
		switch {
		case b.esc:
			b.esc = false
		case b.in && c == '\\':
			b.esc = true
		case c == '"':
			b.in = !b.in
		case b.in:
		case c == '{':
			b.n++
			if b.depth == itemDepth {
				b.items++
			}
			b.depth++
		case c == '[':
			b.depth++
		case c == '}' || c == ']':
			b.depth--
		}
	}
	switch {
	case b.n > b.limit:
		b.err = &ObjectsError{Limit: b.limit}
	case b.items > b.maxItems:
		b.err = &ObjectsError{Limit: b.maxItems, Items: true}
	default:
		return n, err
	}
	return 0, b.err
}

// gunzipBody decodes a body labelled gzip that the transport left as it
// came (see Decompress). It starts decoding at its first read, so that a
// stream's headers are not held up, and reads a body that does not start
// with gzip's magic bytes as it came: a relay that decoded its upstream's
// gzip but forwards its headers labels a plain body so (see Decompress).
type gunzipBody struct {
	src io.ReadCloser
	r   io.Reader // what reads give: the decoder, or the plain body
	err error
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

func (b *gunzipBody) Read(p []byte) (int, error) {
	if b.r == nil && b.err == nil {
		br := bufio.NewReader(b.src)
		switch head, err := br.Peek(len(gzipMagic)); {
		case len(head) == 0 && err != nil:
			b.err = err // an empty body, whatever its label, as Go's transport reads it
		case !bytes.Equal(head, gzipMagic):
			b.r = br
		default:
			b.r, b.err = gzip.NewReader(br)
			if b.err == io.EOF {
				b.err = io.ErrUnexpectedEOF
			}
		}
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.r.Read(p)
}

func (b *gunzipBody) Close() error { return b.src.Close() }

// Decompress makes res's body decode what the server labelled gzip and the
// transport left as it came: it does so for a request that asked for an
// encoding itself, the client's Accept-Encoding (see AskGzip) or the
// caller's own ("identity" among them, which some servers ignore). A body
// labelled gzip that is not (Open WebUI's OpenAI proxy forwarded its
// upstream's Content-Encoding with the body its HTTP client had decoded:
// open-webui/open-webui#23920; aio-libs/aiohttp#4462) is read as it came,
// where Go's transport fails on its first read ("gzip: invalid header").
// res's headers then say the body is decoded, as the transport's do.
func Decompress(res *http.Response) {
	if compressed(res) {
		res.Body = &gunzipBody{src: res.Body}
		res.Header.Del("Content-Encoding")
		res.Header.Del("Content-Length")
		res.ContentLength, res.Uncompressed = -1, true
	}
}

// compressed reports whether res's body is still labelled gzip.
func compressed(res *http.Response) bool {
	return !res.Uncompressed && strings.EqualFold(strings.TrimSpace(res.Header.Get("Content-Encoding")), "gzip")
}

// AskGzip makes req ask for a gzip body, as Go's transport asks when a
// request names no encoding (and then decodes the body itself, failing on
// a body labelled gzip that is not: see Decompress); it leaves req as it
// is when it names one, or asks for a range. The body is then decoded by
// Decompress, each read as its bytes arrive. req is changed in place: it
// must be the sender's own (openai-go makes one for each try).
func AskGzip(req *http.Request) {
	if req.Header.Get("Accept-Encoding") != "" || req.Header.Get("Range") != "" || req.Method == http.MethodHead {
		return
	}
	req.Header.Set("Accept-Encoding", "gzip")
}
