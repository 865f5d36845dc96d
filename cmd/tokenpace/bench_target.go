package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"golang.org/x/term"

	"github.com/tokenpace/tokenpace"
	"github.com/tokenpace/tokenpace/simulate"
)

// termIsTerminal reports whether fd is a terminal.
var termIsTerminal = term.IsTerminal

// benchTarget is the endpoint under test: a base URL, or a simulator
// started in process on an in-memory listener.
type benchTarget struct {
	oc     openai.Client
	client *tokenpace.Client
	model  string
	// what describes the endpoint for the report, without credentials.
	what string
	// key is the API key sent, to keep it out of messages; "" if none.
	key string
	// queryValues are the values of the base URL's query, which may hold
	// a key (?key=), kept out of messages as the key is.
	queryValues []string
	// deployment is the embedded simulator's, nil for a base URL.
	deployment *simulate.Deployment
	close      func()
	// unlisted holds the models the endpoint lists when they do not
	// include model; nil when they do, or when it lists none.
	unlisted []string
}

// modelNote says, when the endpoint does not list the model asked for,
// which ones it does; "" otherwise.
func (t *benchTarget) modelNote() string {
	if t.unlisted == nil {
		return ""
	}
	list := t.unlisted
	more := ""
	if len(list) > 10 {
		list, more = list[:10], fmt.Sprintf(" and %d more", len(list)-10)
	}
	return fmt.Sprintf("%s does not list model %q; it lists %s%s (name one with --model)", t.what, t.model, strings.Join(list, ", "), more)
}

// names reports whether id, a model the endpoint lists, is model. Ollama
// lists its models with their tag and serves a name without one as its
// ":latest" (ollama/ollama docs/api.md, "Model names"): "tiny" asks for
// the "tiny:latest" it lists.
func names(id, model string) bool {
	return id == model || !strings.Contains(model, ":") && id == model+":latest"
}

// newBenchTarget connects to f.baseURL, or starts the embedded simulator.
func newBenchTarget(f *benchFlags) (*benchTarget, error) {
	t := &benchTarget{close: func() {}}
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if f.baseURL == "" {
		d, err := f.hw.deployment()
		if err != nil {
			return nil, err
		}
		e, err := simulate.NewEngine(d)
		if err != nil {
			return nil, err
		}
		d = e.Deployment()
		t.model = d.Model.Name
		sim, err := simulate.ServeInMemory(simulate.WithModel(t.model, e), simulate.WithSeed(f.seed))
		if err != nil {
			return nil, err
		}
		t.close = func() { _ = sim.Close() }
		t.deployment = &d
		t.what = fmt.Sprintf("embedded simulator: %s at %s on %d × %s", d.Model.Name, d.Precision.Name, d.GPUs, d.GPU.Name)
		opts = append(opts, option.WithBaseURL(sim.BaseURL()), option.WithHTTPClient(sim.Client()), option.WithAPIKey("simulator"))
	} else {
		u, err := url.Parse(f.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--base-url %q: want an http:// or https:// URL such as http://localhost:8000/v1", f.baseURL)
		}
		t.what, t.queryValues = printableURL(f.baseURL)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(f.concurrency, 64)
		hc := &http.Client{Transport: tr}
		t.close = hc.CloseIdleConnections
		opts = append(opts, option.WithBaseURL(f.baseURL), option.WithHTTPClient(hc))
		if err := checkKeyVariable(f.apiKeyEnv); err != nil {
			t.close()
			return nil, err
		}
		if key := os.Getenv(f.apiKeyEnv); key != "" {
			opts = append(opts, option.WithAPIKey(key))
			t.key = key
		} else if f.apiKeyEnv != "OPENAI_API_KEY" {
			t.close()
			return nil, fmt.Errorf("--api-key-env: environment variable %s is empty", f.apiKeyEnv)
		} else {
			// Local servers take any key; openai-go wants one.
			opts = append(opts, option.WithAPIKey("none"))
		}
		t.model = f.hw.model
	}
	t.oc = openai.NewClient(opts...)
	t.client = tokenpace.NewClient(t.oc)
	return t, nil
}

// probe checks that the endpoint answers at all, so that a wrong URL fails
// fast with one clear line instead of N identical errors, and picks the
// model when none was given. Any HTTP error status (even 401 or 404)
// counts as reachable: errors from the server are measured, not fatal. A
// success status whose body is no model list (a web page: the base URL
// lacks /v1) is a wrong URL too.
func (t *benchTarget) probe(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 15*time.Second))
	defer cancel()
	page, err := listModels(ctx, t.oc)
	var apiErr *openai.Error
	var notAPI *notAPIError
	switch {
	case err == nil:
		if t.model == "" && len(page.Data) > 0 {
			t.model = page.Data[0].ID
		}
		t.unlisted = nil
		for _, m := range page.Data {
			if names(m.ID, t.model) {
				t.unlisted = nil
				break
			}
			t.unlisted = append(t.unlisted, m.ID)
		}
	case errors.As(err, &apiErr) && t.model == "":
		// Reachable, but the model cannot be picked: say why.
		return fmt.Errorf("%s answered the model list with %d %s: %s; name a model with --model, or check the API key",
			t.what, apiErr.StatusCode, http.StatusText(apiErr.StatusCode), t.serverMessage(apiErr))
	case errors.As(err, &apiErr):
		// Reachable; /models may be missing or need another key.
	case errors.As(err, &notAPI):
		// Reachable, but no OpenAI API answered: the requests would
		// fail alike, each with its own copy of what came back.
		return fmt.Errorf("%s answered, but not as an OpenAI API: %v", t.what, err)
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %v", t.what, min(timeout, 15*time.Second))
	default:
		return fmt.Errorf("cannot reach %s: %v", t.what, rootCause(err))
	}
	if t.model == "" {
		return fmt.Errorf("%s lists no model: name one with --model", t.what)
	}
	return nil
}

// serverMessage returns the message of a server's error, at most 200
// bytes, with the API key removed should the server echo it.
func (t *benchTarget) serverMessage(e *openai.Error) string {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
	}
	if msg == "" {
		msg = "no message"
	}
	if t.key != "" {
		msg = strings.ReplaceAll(msg, t.key, "[API key]")
	}
	msg = hideAll(msg, t.queryValues)
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "") + "…"
	}
	return msg
}

// failure says what a request's error was: the server's status and
// message for an error it answered (the API key kept out, as
// serverMessage does), else the error itself, on one line.
func (t *benchTarget) failure(err error) string {
	var e *openai.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), strings.Join(strings.Fields(t.serverMessage(e)), " "))
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// rootCause returns the innermost error of err's chain, which for a
// failed connection is the system's own words ("connection refused", "no
// such host") without the URL and method openai-go adds around them.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// hideQueryValues replaces the values of u's query with "[hidden]", so
// that u can be printed: some endpoints take their key in the query
// (?key=). It returns the values it hid, the empty ones aside.
func hideQueryValues(u *url.URL) []string {
	if u.RawQuery == "" {
		return nil
	}
	var hidden, parts []string
	for _, p := range strings.Split(u.RawQuery, "&") {
		name, value, _ := strings.Cut(p, "=")
		if v, err := url.QueryUnescape(value); err == nil && v != "" {
			hidden = append(hidden, v)
		}
		if value != "" {
			hidden = append(hidden, value)
			p = name + "=[hidden]"
		}
		parts = append(parts, p)
	}
	u.RawQuery = strings.Join(parts, "&")
	return hidden
}

// printableURL returns raw without its user info and with its query's
// values hidden (see hideQueryValues), and the values it hid; raw itself
// when it does not parse.
func printableURL(raw string) (string, []string) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, nil
	}
	u.User = nil
	hidden := hideQueryValues(u)
	return u.String(), hidden
}

// hideAll replaces each of secrets in s with "[hidden]".
func hideAll(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "[hidden]")
	}
	return s
}

// checkKeyVariable refuses an API key, in the environment variable name,
// that an HTTP header cannot carry: a line break or another control
// character, as a key pasted from a file often ends with. Without it the
// request fails before it is sent, with a message that reads as a server
// that cannot be reached. The key itself is never in the error.
func checkKeyVariable(name string) error {
	for _, b := range []byte(os.Getenv(name)) {
		if (b < ' ' && b != '\t') || b == 0x7f {
			return fmt.Errorf("--api-key-env: the key in %s holds a line break or another control character, which no HTTP header carries: set it without one", name)
		}
	}
	return nil
}
