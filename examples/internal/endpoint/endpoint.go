// Package endpoint connects the examples to an OpenAI-compatible endpoint:
// a real one named by --base-url, with the key in OPENAI_API_KEY, or by
// default the simulator served in process, so that every example runs with
// no set-up.
package endpoint

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tokenpace/tokenpace/simulate"
)

// Endpoint is where an example sends its requests.
type Endpoint struct {
	// BaseURL is the API's base URL, e.g. "https://api.openai.com/v1/".
	BaseURL string
	// HTTP is the client that reaches it; nil means http.DefaultClient.
	HTTP *http.Client
	// APIKey is the key to send; empty sends "none", for servers that want
	// no key.
	APIKey string
}

// Client returns an openai-go client of e. It makes no retries, so that an
// example shows every failure as it happened.
func (e Endpoint) Client() openai.Client {
	key := e.APIKey
	if key == "" {
		key = "none"
	}
	opts := []option.RequestOption{option.WithBaseURL(e.BaseURL), option.WithMaxRetries(0), option.WithAPIKey(key)}
	if e.HTTP != nil {
		opts = append(opts, option.WithHTTPClient(e.HTTP))
	}
	return openai.NewClient(opts...)
}

// Open returns the endpoint at baseURL with the key in OPENAI_API_KEY or,
// when baseURL is empty, serves the simulator in process with the options
// that sim returns. The returned close stops what Open started; it reports
// a failure of the simulator's serving, and does nothing for a real
// endpoint.
func Open(baseURL string, sim func() ([]simulate.Option, error)) (ep Endpoint, close func() error, err error) {
	if baseURL != "" {
		return Endpoint{BaseURL: baseURL, APIKey: os.Getenv("OPENAI_API_KEY")}, func() error { return nil }, nil
	}
	opts, err := sim()
	if err != nil {
		return Endpoint{}, nil, err
	}
	s, err := simulate.ServeInMemory(opts...)
	if err != nil {
		return Endpoint{}, nil, err
	}
	return Endpoint{BaseURL: s.BaseURL(), HTTP: s.Client(), APIKey: "simulator"}, s.Close, nil
}

// Engines returns simulator options that serve each of models, by its
// catalog name, on a deployment like d (d.Model is set for each). A name
// given twice (an example's two roles played by one model) is served once.
func Engines(d simulate.Deployment, models ...string) ([]simulate.Option, error) {
	opts := make([]simulate.Option, 0, len(models))
	for i, name := range models {
		if slices.Contains(models[:i], name) {
			continue
		}
		m, err := simulate.LookupModel(name)
		if err != nil {
			return nil, err
		}
		d.Model = m
		e, err := simulate.NewEngine(d)
		if err != nil {
			return nil, err
		}
		opts = append(opts, simulate.WithModel(name, e))
	}
	return opts, nil
}

// Main is the end of an example's main: it opens the endpoint at baseURL
// (see Open), calls run with it and a context that an interrupt cancels,
// and closes it. It reports a failure on stderr after name, and exits the
// process with status 1 if opening or run failed.
func Main(name, baseURL string, sim func() ([]simulate.Option, error), run func(context.Context, Endpoint) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ep, closeEP, err := Open(baseURL, sim)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	err = run(ctx, ep)
	if cerr := closeEP(); cerr != nil {
		fmt.Fprintf(os.Stderr, "%s: simulator: %v\n", name, cerr)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		stop()
		os.Exit(1)
	}
}
