package simulate

import "time"

// A Scheduler decides when every token of every request is emitted. It is
// the timing core that both drivers share: the offline driver (Run) feeds it
// a whole workload at once, the online driver (the HTTP server) feeds it
// requests as they arrive and waits for its events in real or virtual time.
//
// Time is a Duration since the scheduler's epoch (the driver's start), so a
// Scheduler never reads a clock. A Scheduler is not safe for concurrent use;
// each driver owns one.
type Scheduler interface {
	// Add admits r, which arrived at now. now is never earlier than the
	// time of the last event AdvanceTo delivered.
	Add(now time.Duration, r *Request)
	// Cancel withdraws the request with id at now (its client went away);
	// its slot and KV blocks are freed. Unknown ids are ignored.
	Cancel(now time.Duration, id uint64)
	// Next reports the time of the next event (a step end, or an
	// Engine's front end writing a chunk, that emits tokens), or ok =
	// false when nothing is queued or running.
	Next() (at time.Duration, ok bool)
	// AdvanceTo runs every step that ends at or before t, calling emit for
	// each request that produced tokens at that step end, in time order.
	AdvanceTo(t time.Duration, emit func(Emission))
	// Stats reports the engine's state at the time of the last event.
	Stats() Stats
}

// Request is one generation request as the engine sees it.
type Request struct {
	// ID identifies the request in Emissions; the driver assigns it.
	ID uint64
	// PromptTokens is the length of the prompt in tokens.
	PromptTokens int
	// PrefixKey names the shared prefix of the prompt for prefix caching:
	// requests with the same non-empty key share their first PrefixTokens
	// tokens. Empty means no shared prefix.
	PrefixKey string
	// PrefixTokens is how many leading prompt tokens PrefixKey covers.
	PrefixTokens int
	// OutputTokens is how many tokens the request will generate before it
	// stops (max_tokens, a stop sequence or EOS, decided by the driver).
	OutputTokens int
	// NextPrefixKey, when set, names the prompt and its reply together:
	// once the request has generated its output, both stay in the prefix
	// cache under this key (as a serving engine keeps a finished
	// sequence's blocks), for a conversation's next turn to reuse; a
	// request cancelled midway leaves what it computed there. A
	// later request with the same key sends the same prompt again, and
	// reuses all of it but its last token.
	NextPrefixKey string
}

// Emission reports tokens a request produced at one step end.
type Emission struct {
	// ID is the Request.ID.
	ID uint64
	// At is when the tokens reach their client: when the step that
	// produced them ended or, behind an Engine's front end
	// (Deployment.FrontEndPerChunk), when the front end wrote them.
	At time.Duration
	// Tokens is how many new tokens the step produced (more than one with
	// speculative decoding); 0 never occurs.
	Tokens int
	// First is true for the request's first emission; Queue, Prefill and
	// CachedTokens are set only then.
	First bool
	// Done is true when the request has produced all its OutputTokens.
	Done bool
	// Queue is how long the request waited for a slot before its prefill
	// started.
	Queue time.Duration
	// Prefill is how long the request's prefill took, from the start of
	// its first prefill step to this emission (chunked prefill can spread
	// it over several steps shared with other sequences).
	Prefill time.Duration
	// CachedTokens is how many prompt tokens the prefix cache served.
	CachedTokens int
}

// Stats is a snapshot of the engine's state, exported by the server as
// Prometheus-style metrics.
type Stats struct {
	Waiting        int     // requests queued for a slot
	Running        int     // requests prefilling or decoding
	KVUsage        float64 // fraction of KV-cache blocks in use, 0..1
	Offloaded      bool    // KV cache spilled to host memory
	PrefixHits     int64   // prompt tokens served from the prefix cache
	PromptTokens   int64   // prompt tokens admitted
	GeneratedTotal int64   // tokens generated
	Preemptions    int64   // sequences preempted for lack of KV blocks
}
