package simulate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultModel is the model a Server serves when no WithModel option is
// given: a Fixed scheduler with DefaultTTFT and DefaultITL.
const DefaultModel = "sim"

// Timing of the DefaultModel.
const (
	DefaultTTFT = 200 * time.Millisecond
	DefaultITL  = 20 * time.Millisecond
)

// Defaults of the request limits.
const (
	// DefaultMaxTokens is the output length of a request that sets neither
	// max_tokens nor max_completion_tokens.
	DefaultMaxTokens = 256
	// DefaultMaxTokensLimit is the largest max_tokens a request may ask.
	DefaultMaxTokensLimit = 1 << 17
	// DefaultMaxBodyBytes is the largest request body accepted; larger
	// ones get 413.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultBodyTimeout is how long the server waits for a request's
	// body once its headers are read; a body still incomplete then gets
	// 408 and the connection is closed.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultWriteTimeout is how long a response's write may wait for a
	// client that takes none of its bytes before the client is dropped.
	DefaultWriteTimeout = 10 * time.Second
	// MaxStop is the most stop sequences a request may hold, as OpenAI
	// allows; more get 400.
	MaxStop = 4
)

// Server is a simulated OpenAI-compatible LLM backend. It is an
// http.Handler serving
//
//	POST /v1/chat/completions   streaming and not
//	POST /v1/completions        the legacy text API (with suffix: FIM),
//	                            streaming and not
//	POST /v1/responses          the Responses API, streaming and not
//	GET  /v1/responses/{id}     a background response, streaming and not
//	POST /v1/responses/{id}/cancel
//	                            cancels a background response
//	GET  /v1/models             the served models
//	GET  /v1/models/{model}     one of them
//	GET  /health                200 while serving, 503 once closed
//	GET  /metrics               engine state, Prometheus text format
//
// Each model has its own Scheduler, owned by one goroutine (the online
// driver) from NewServer to Close: the engine decides when tokens are due,
// the server sends them on time, with the network model (WithRTT,
// WithBuffering) and the faults (WithFaults, WithFaultHeader) applied. The
// server counts valid completion requests from 0 in order of arrival;
// request i reaches the Scheduler as Request.ID i+1, so a Fixed.PerRequest
// or a Faults.Script can single out the nth request (a slow first attempt
// for a hedging test, say).
//
// Serve it with net/http (set http.Server.ConnContext to the Server's
// ConnContext, so that its drivers write stream chunks straight to the
// connections: the same bytes for less CPU), or through StartLoopback and
// StartInMemory in tests. A Server is safe for concurrent use. Close it to
// stop its drivers.
type Server struct {
	cfg        config
	models     map[string]*model
	names      []string
	next       atomic.Uint64 // requests seen, for ids and fault draws
	late       lateness      // how late the server writes
	limits     rateBuckets   // the state of WithRateLimit
	stored     responseStore // the Responses API's stored responses
	background bgStore       // its background responses
	direct     directCounts  // the drivers' direct writes
	mux        *http.ServeMux
	close      sync.Once

	// closing ends when Close is called: every write still waiting for
	// a client fails then.
	closing context.Context
	closed  context.CancelFunc
}

type model struct {
	name   string
	driver *driver
	// context is the longest prompt plus output the model takes, in
	// tokens; 0 for no limit (a scheduler without a catalog model).
	context int
}

// contextOf returns the context length of the model sched serves: its
// deployment's, for an Engine or a Cluster; 0 (no limit) otherwise.
func contextOf(sched Scheduler) int {
	switch s := sched.(type) {
	case interface{ Deployment() Deployment }:
		return s.Deployment().Model.Context
	case *Cluster:
		if r := s.Replicas(); len(r) > 0 {
			return r[0].Deployment().Model.Context
		}
	}
	return 0
}

// config holds what the options set.
type config struct {
	models         []modelConfig
	rtt            time.Duration
	buffering      bool
	roleFirst      bool
	chunkTokens    int
	seed           uint64
	outputTokens   func(*rand.Rand) int
	reply          func(ReplyInfo) (string, bool)
	toolCalls      func(ReplyInfo) []ToolCall
	faults         Faults
	maxTokens      int
	maxTokensLimit int
	maxBodyBytes   int64
	bodyTimeout    time.Duration
	writeTimeout   time.Duration
	faultHeader    bool
	precise        bool
	created        int64
	rateLimit      RateLimit
}

type modelConfig struct {
	name  string
	sched Scheduler
}

// An Option configures a Server.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithModel serves a model named name whose timing s decides. The Server
// owns s from then on; give each model its own Scheduler. Several models
// may share a server (a "big" and a "small", say). Without any WithModel,
// the server serves DefaultModel.
func WithModel(name string, s Scheduler) Option {
	return optionFunc(func(c *config) { c.models = append(c.models, modelConfig{name, s}) })
}

// WithRTT sets the network round-trip time between client and server:
// the server sees each request rtt/2 after it was sent, and every byte of
// the response arrives rtt/2 after the server sent it. Zero (the default)
// means none.
func WithRTT(rtt time.Duration) Option {
	return optionFunc(func(c *config) { c.rtt = rtt })
}

// WithBuffering puts a buffering proxy between server and client: the
// whole response, headers included, is held until the generation ends,
// then delivered at once (the "illusion of speed" of a proxy without
// X-Accel-Buffering: no). Off by default.
func WithBuffering(on bool) Option {
	return optionFunc(func(c *config) { c.buffering = on })
}

// WithRoleFirst sends the role-only chunk as soon as the response starts,
// as hosted APIs do. By default it goes out with the first token, as vLLM's
// does. On the Responses API the same holds for response.created and
// response.in_progress.
func WithRoleFirst(on bool) Option {
	return optionFunc(func(c *config) { c.roleFirst = on })
}

// WithChunkTokens sends n tokens per chunk (the last chunk may hold
// fewer); each chunk goes out when its last token is due. The default is 1.
func WithChunkTokens(n int) Option {
	return optionFunc(func(c *config) { c.chunkTokens = n })
}

// WithSeed seeds generated text and output lengths; the default is 0.
// A request's text depends on the seed and on the request's own "seed"
// parameter if set, else on its prompt: the same request to a server with
// the same seed always gets the same reply.
func WithSeed(seed uint64) Option {
	return optionFunc(func(c *config) { c.seed = seed })
}

// WithOutputTokens draws each request's output length from f (given the
// request's seeded generator) instead of always generating max_tokens: a
// request stops ("stop") after min(f(rng), max_tokens) tokens, or with
// "length" when max_tokens is the smaller.
func WithOutputTokens(f func(rng *rand.Rand) int) Option {
	return optionFunc(func(c *config) { c.outputTokens = f })
}

// ReplyInfo describes a request to a WithReply function.
type ReplyInfo struct {
	// Index counts the server's requests from 0, in order of arrival.
	Index uint64
	// Model is the requested model.
	Model string
	// Prompt is the text of the last chat message or Responses input
	// item, or the completions prompt.
	Prompt string
	// Suffix is a completions request's suffix (fill-in-the-middle).
	Suffix string
	// Tools are the names of the function tools a chat or Responses
	// request offers.
	Tools []string
}

// WithReply scripts replies: for each request f returns the exact text to
// send and true, or false to generate text as usual. The text is cut into
// tokens at whitespace (a token is the spaces before a word and the word),
// and ends with finish_reason "stop" unless max_tokens cuts it first.
func WithReply(f func(ReplyInfo) (text string, ok bool)) Option {
	return optionFunc(func(c *config) { c.reply = f })
}

// WithFaults injects faults; see Faults.
func WithFaults(f Faults) Option {
	return optionFunc(func(c *config) { c.faults = f })
}

// WithFaultHeader lets clients pick the fault of their request through
// FaultHeader. Off by default for NewServer, so that a client cannot make
// a shared simulator fail; StartInMemory, StartLoopback and ServeInMemory
// turn it on (their clients are the test or program itself), and
// WithFaultHeader(false) after their options turns it off again. With it
// off, the header is ignored.
func WithFaultHeader(on bool) Option {
	return optionFunc(func(c *config) { c.faultHeader = on })
}

// WithBodyTimeout sets how long the server waits for a request's body
// once its headers are read: a client that sends a partial body gets 408
// and its connection is closed at the deadline. Zero means
// DefaultBodyTimeout. It needs a connection that supports read deadlines
// (net/http's own do); elsewhere it does nothing.
func WithBodyTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.bodyTimeout = d })
}

// WithWriteTimeout sets how long each write of a response may wait for a
// client that does not read: a client that takes none of a write's bytes
// within d (its connection's buffers are full, and it reads too little to
// drain them) is dropped, its connection closed and the engine's slot
// freed, so that a stalled client holds neither a goroutine nor memory
// for long. While a write waits, the tokens its stream generates queue in
// memory: at most d's worth of them. A client that reads, however slowly,
// is not dropped as long as each write completes within d; one that reads
// more slowly than its stream generates falls further behind with every
// write until one takes longer than d. Zero means DefaultWriteTimeout. It
// needs a connection that supports write deadlines (net/http's own and
// the in-memory ones do) and an http.ResponseWriter that reaches it
// (http.ResponseController); elsewhere writes wait as long as the
// connection does.
func WithWriteTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.writeTimeout = d })
}

// WithMaxTokens sets the output length of requests without max_tokens;
// the default is DefaultMaxTokens.
func WithMaxTokens(n int) Option {
	return optionFunc(func(c *config) { c.maxTokens = n })
}

// WithMaxTokensLimit sets the largest max_tokens accepted (larger gets
// 400); the default is DefaultMaxTokensLimit.
func WithMaxTokensLimit(n int) Option {
	return optionFunc(func(c *config) { c.maxTokensLimit = n })
}

// WithMaxBodyBytes sets the largest request body accepted (larger gets
// 413); the default is DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return optionFunc(func(c *config) { c.maxBodyBytes = n })
}

// WithPreciseTimer makes the drivers wait for the engine's events on a
// Linux timerfd read through the runtime's network poller, where Go's own
// timers wake an idle process up to a millisecond late (the poller sleeps
// in whole milliseconds). It spins nothing: the cost is a system call to
// set the timer and one to read it per wake-up, and more wake-ups, at most
// one per 250 µs (events due closer together than that to the last
// wake-up wait for the next) instead of at most one per millisecond. Over
// loopback on a shared 2-core machine it wrote about 90% of the chunks
// within 0.5 ms of their due time against about 40% without, and cost about
// 40% more server CPU per chunk at 256 concurrent streams. Off by default.
// The timer runs on the real clock, so leave it off under
// testing/synctest; on systems other than Linux the option does nothing.
// NewServer fails if the kernel refuses a timerfd.
//
// With WithRTT, the half round trip added to each write is waited for
// with a Go timer.
func WithPreciseTimer(on bool) Option {
	return optionFunc(func(c *config) { c.precise = on })
}

// NewServer returns a Server and starts one driver goroutine per model.
// It fails on duplicate or empty model names, a nil Scheduler, or
// out-of-range options.
func NewServer(opts ...Option) (*Server, error) {
	cfg := config{
		chunkTokens:    1,
		maxTokens:      DefaultMaxTokens,
		maxTokensLimit: DefaultMaxTokensLimit,
		maxBodyBytes:   DefaultMaxBodyBytes,
	}
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if len(cfg.models) == 0 {
		cfg.models = []modelConfig{{DefaultModel, &Fixed{TTFT: DefaultTTFT, ITL: DefaultITL}}}
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, models: make(map[string]*model), limits: rateBuckets{l: cfg.rateLimit}}
	s.closing, s.closed = context.WithCancel(context.Background())
	for _, m := range cfg.models {
		if m.name == "" {
			return nil, errors.New("simulate: empty model name")
		}
		if m.sched == nil {
			return nil, fmt.Errorf("simulate: model %q has a nil Scheduler", m.name)
		}
		if _, dup := s.models[m.name]; dup {
			return nil, fmt.Errorf("simulate: model %q given twice", m.name)
		}
		s.models[m.name] = &model{name: m.name, context: contextOf(m.sched)}
		s.names = append(s.names, m.name)
	}
	sort.Strings(s.names)
	alarms, err := newAlarms(len(cfg.models), cfg.precise)
	if err != nil {
		return nil, err
	}
	for i, m := range cfg.models {
		s.models[m.name].driver = newDriver(m.sched, alarms[i])
	}
	s.cfg.created = time.Now().Unix()
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("/v1/chat/completions", s.post(s.chat))
	s.mux.HandleFunc("/v1/completions", s.post(s.completions))
	s.mux.HandleFunc("/v1/responses", s.post(s.responses))
	s.mux.HandleFunc("/v1/responses/{id}", s.get(s.getResponse))
	s.mux.HandleFunc("/v1/responses/{id}/cancel", s.post(s.cancelResponse))
	s.mux.HandleFunc("/v1/models", s.get(s.listModels))
	s.mux.HandleFunc("/v1/models/{model...}", s.get(s.getModel))
	s.mux.HandleFunc("/health", s.get(s.health))
	s.mux.HandleFunc("/metrics", s.get(s.metrics))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{status: http.StatusNotFound, message: fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path)})
	})
	return s, nil
}

// check refuses a configuration out of range, and sets the defaults of
// the timeouts.
func (cfg *config) check() error {
	switch {
	case cfg.rtt < 0:
		return fmt.Errorf("simulate: negative RTT %v", cfg.rtt)
	case cfg.chunkTokens < 1:
		return fmt.Errorf("simulate: chunk tokens %d, want at least 1", cfg.chunkTokens)
	case cfg.maxTokensLimit < 1:
		return fmt.Errorf("simulate: max tokens limit %d, want at least 1", cfg.maxTokensLimit)
	case cfg.maxTokens < 1 || cfg.maxTokens > cfg.maxTokensLimit:
		return fmt.Errorf("simulate: default max tokens %d out of range 1..%d", cfg.maxTokens, cfg.maxTokensLimit)
	case cfg.maxBodyBytes < 1:
		return fmt.Errorf("simulate: max body bytes %d, want at least 1", cfg.maxBodyBytes)
	case cfg.bodyTimeout < 0:
		return fmt.Errorf("simulate: negative body timeout %v", cfg.bodyTimeout)
	case cfg.writeTimeout < 0:
		return fmt.Errorf("simulate: negative write timeout %v", cfg.writeTimeout)
	}
	if cfg.bodyTimeout == 0 {
		cfg.bodyTimeout = DefaultBodyTimeout
	}
	if cfg.writeTimeout == 0 {
		cfg.writeTimeout = DefaultWriteTimeout
	}
	if err := cfg.faults.validate(); err != nil {
		return err
	}
	if err := cfg.rateLimit.validate(); err != nil {
		return err
	}
	return nil
}

// newAlarms returns n alarms, on kernel timers when precise.
func newAlarms(n int, precise bool) ([]alarm, error) {
	alarms := make([]alarm, n)
	for i := range alarms {
		if !precise {
			alarms[i] = newGoTimer()
			continue
		}
		a, err := newPreciseTimer()
		if err != nil {
			for _, a := range alarms[:i] {
				a.close()
			}
			return nil, err
		}
		alarms[i] = a
	}
	return alarms, nil
}

// Models returns the names of the served models, sorted.
func (s *Server) Models() []string { return append([]string(nil), s.names...) }

// Stats returns the current engine state of model (zero once the server is
// closed), or false if the server does not serve it.
func (s *Server) Stats(model string) (Stats, bool) {
	m, ok := s.models[model]
	if !ok {
		return Stats{}, false
	}
	return m.driver.snapshot(), true
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close stops the drivers; requests still running end without further
// tokens, at once, even those whose writes wait for a client that does not
// read; later completion requests, and GET /health, get 503. It returns
// nil; later calls do nothing. To stop an http.Server
// that serves s (http.Server.Shutdown, httptest.Server.Close wait for
// running requests), close s first.
func (s *Server) Close() error {
	s.close.Do(func() {
		s.closed()
		for _, m := range s.models {
			m.driver.close()
		}
	})
	return nil
}

func (s *Server) post(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, &apiError{status: http.StatusMethodNotAllowed, message: fmt.Sprintf("method %s not allowed on %s (want POST)", r.Method, r.URL.Path)})
			return
		}
		h(w, r)
	}
}

func (s *Server) get(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, &apiError{status: http.StatusMethodNotAllowed, message: fmt.Sprintf("method %s not allowed on %s (want GET)", r.Method, r.URL.Path)})
			return
		}
		h(w, r)
	}
}
