package metrics

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tokenpace/tokenpace"
)

// Kind names a latency pathology a Detector recognises.
type Kind string

// Kinds of detection.
const (
	// KindBufferingProxy: the chunks of a stream arrived in one burst at
	// its end, so the caller saw nothing until generation was over; or a
	// successful response was not an event stream at all (a
	// tokenpace.KindContentType error, of the request or of an attempt a
	// Router recovered from).
	// The usual cause is a proxy (nginx, a CDN) that buffers or
	// rewrites the response. A response without X-Accel-Buffering: no is
	// not flagged for that alone (many servers that stream well do not
	// send it); its absence is named in the Message of a burst.
	KindBufferingProxy Kind = "buffering_proxy"
	// KindTPSCollapse: a stream decoded far slower than its target's
	// recent baseline, the mark of a server that ran out of KV-cache
	// memory and offloads or preempts.
	KindTPSCollapse Kind = "tps_collapse"
	// KindPromptCut: the server counted far fewer prompt tokens than the
	// prompt's text holds (over PromptBytesPerToken bytes of text a token,
	// where text runs 3 to 5): it cut the prompt to fit its context and
	// answered from what was left, with status 200. Ollama does so for a
	// prompt over its context length, keeping the prompt's end
	// (ollama/ollama#4967), and logs it at warning level only.
	KindPromptCut Kind = "prompt_cut"
)

// Detection is one pathology found in one request.
type Detection struct {
	// Kind names the pathology.
	Kind Kind
	// Target and Model are those of the request it was found in.
	Target, Model string
	// At is when the pathology became evident: the first token for a
	// burst, the response headers (the end of the attempt, within a
	// Router call) for a response that is not an event stream, the end of
	// the stream for KindTPSCollapse and KindPromptCut.
	At time.Time
	// Observed and Baseline are decode rates in tokens per second for
	// KindTPSCollapse (this stream, the target's recent median). For
	// a burst, Observed is the span of the burst and Baseline the time to
	// first token, both in seconds; both are 0 for a response that is not
	// an event stream. For KindPromptCut, Observed is the prompt's bytes
	// of text a prompt token and Baseline the threshold.
	Observed, Baseline float64
	// Message says what was seen, with figures; Hint what to do about it.
	Message, Hint string
}

// BufferingHint is the Hint of a KindBufferingProxy detection.
const BufferingHint = "a proxy between client and server buffers the stream: " +
	"send the response header X-Accel-Buffering: no (nginx: proxy_buffering off) " +
	"and make sure no CDN or gateway buffers text/event-stream"

// CollapseHint is the Hint of a KindTPSCollapse detection.
const CollapseHint = "the server decodes far below its usual rate, typically because its " +
	"KV cache is full and it offloads or preempts: lower concurrency or " +
	"max_tokens, or add capacity"

// PromptCutHint is the Hint of a KindPromptCut detection.
const PromptCutHint = "the server cut the prompt to fit its context and answered from the rest: " +
	"raise its context length (Ollama: OLLAMA_CONTEXT_LENGTH, or num_ctx in the model's Modelfile) " +
	"or send a shorter prompt"

// DetectorConfig holds the thresholds of a Detector. Every field's zero value
// selects the default stated for it.
type DetectorConfig struct {
	// BurstMinChunks is the fewest output chunks a stream needs to be
	// judged for buffering; zero means 4.
	BurstMinChunks int
	// BurstGap is the mean gap between chunks at or under which the chunks
	// count as one burst; zero means 2ms (500 chunks/s, faster than any
	// token-by-token decode).
	BurstGap time.Duration
	// BurstShare is the largest share of the time to first token that the
	// burst may span; zero means 0.1.
	BurstShare float64

	// CollapseRatio flags a stream whose decode rate is below this share
	// of its target's baseline; zero means 0.5.
	CollapseRatio float64
	// BaselineSize is how many recent streams per target and model the
	// baseline (their median decode rate) covers; zero means 32.
	BaselineSize int
	// BaselineMin is how many streams the baseline needs before streams are
	// judged against it; zero means 8.
	BaselineMin int
	// MinTokens is the fewest output tokens a stream needs for its decode
	// rate to count; zero means 8.
	MinTokens int

	// PromptMinBytes is the fewest bytes of prompt text a request needs
	// to be judged for a cut prompt; zero means 4096.
	PromptMinBytes int
	// PromptBytesPerToken flags a prompt whose text has more bytes for
	// each prompt token the server counted; zero means 10 (text runs 3 to
	// 5, so a prompt cut to under about 40 % of itself).
	PromptBytesPerToken float64
}

func (c DetectorConfig) withDefaults() DetectorConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.BurstMinChunks, 4)
	def(&c.BaselineSize, 32)
	def(&c.BaselineMin, 8)
	def(&c.MinTokens, 8)
	def(&c.PromptMinBytes, 4096)
	if c.PromptBytesPerToken <= 0 {
		c.PromptBytesPerToken = 10
	}
	if c.BurstGap <= 0 {
		c.BurstGap = 2 * time.Millisecond
	}
	if c.BurstShare <= 0 {
		c.BurstShare = 0.1
	}
	if c.CollapseRatio <= 0 {
		c.CollapseRatio = 0.5
	}
	c.BaselineMin = min(c.BaselineMin, c.BaselineSize)
	return c
}

// A Detector recognises latency pathologies in finished requests: a
// buffering proxy, a collapse of the decode rate below the recent
// baseline of the same target and model, and a prompt the server cut. It learns the baseline from the
// requests it observes. A Detector is safe for concurrent use; its memory is
// bounded by BaselineSize per target and model, for at most 256 pairs, as
// a Recorder's series are. Past them, a new pair takes the slot of the
// pair observed least recently, whose baseline is forgotten: a
// long-running process judges the models it uses now. A pair is judged
// for a collapse once it has BaselineMin rates, so with more than 256
// pairs in turn some may never be.
//
// Most callers do not use a Detector directly: New, NewRecorder and NewOTel
// run one and report its detections.
type Detector struct {
	cfg DetectorConfig

	mu        sync.Mutex
	baselines map[seriesKey]*baseline
	observed  uint64 // rates learnt, the clock of baseline.seen
}

// baseline is a ring of recent decode rates.
type baseline struct {
	tps  []float64
	next int
	seen uint64 // Detector.observed when a rate was last added
}

// NewDetector returns a Detector with the thresholds of cfg.
func NewDetector(cfg DetectorConfig) *Detector {
	return &Detector{cfg: cfg.withDefaults(), baselines: make(map[seriesKey]*baseline)}
}

// Observe judges t, learns from it, and appends what it found to dst.
func (d *Detector) Observe(dst []Detection, t *tokenpace.Timing) []Detection {
	if d == nil || t == nil {
		return dst
	}
	if det, ok := d.promptCut(t); ok {
		dst = append(dst, det)
	}
	buffered := false
	if det, ok := d.buffering(t); ok {
		dst = append(dst, det)
		buffered = true
	}
	if t.Err != nil || buffered || t.OutputTokens < d.cfg.MinTokens {
		return dst
	}
	tps := t.TPS()
	if tps <= 0 {
		return dst
	}
	key := seriesKey{t.Target, t.Model}
	d.mu.Lock()
	b := d.baselines[key]
	if b == nil {
		b = d.stalest()
		d.baselines[key] = b
	}
	base := b.median()
	enough := len(b.tps) >= d.cfg.BaselineMin
	b.add(tps)
	d.observed++
	b.seen = d.observed
	d.mu.Unlock()
	if enough && tps < d.cfg.CollapseRatio*base {
		dst = append(dst, Detection{
			Kind: KindTPSCollapse, Target: t.Target, Model: t.Model, At: t.End,
			Observed: tps, Baseline: base,
			Message: fmt.Sprintf("decode rate %.1f tokens/s is %.0f%% of the recent median %.1f tokens/s",
				tps, 100*tps/base, base),
			Hint: CollapseHint,
		})
	}
	return dst
}

// promptCut reports whether the server counted so few prompt tokens for
// t's prompt text that it must have cut it. Cached tokens make no
// judgement: some servers leave them out of the prompt's count.
func (d *Detector) promptCut(t *tokenpace.Timing) (Detection, bool) {
	if !t.UsageReported || t.PromptTokens <= 0 || t.CachedTokens > 0 || t.PromptBytes < d.cfg.PromptMinBytes {
		return Detection{}, false
	}
	per := float64(t.PromptBytes) / float64(t.PromptTokens)
	if per <= d.cfg.PromptBytesPerToken {
		return Detection{}, false
	}
	return Detection{
		Kind: KindPromptCut, Target: t.Target, Model: t.Model, At: t.End,
		Observed: per, Baseline: d.cfg.PromptBytesPerToken,
		Message: fmt.Sprintf("the server counted %d prompt tokens for %d bytes of prompt text, %.1f bytes a token (text runs 3 to 5): it answered from part of the prompt",
			t.PromptTokens, t.PromptBytes, per),
		Hint: PromptCutHint,
	}, true
}

// buffering reports whether t's chunks arrived as one burst at the end, or
// its successful response was not an event stream. A stream a gateway
// answered from its cache (StreamHeaders.CacheHit) is no proxy's
// buffering: Helicone replays a cached stream in one burst.
func (d *Detector) buffering(t *tokenpace.Timing) (Detection, bool) {
	if ct, target, at, ok := notEventStream(t); ok {
		return Detection{
			Kind: KindBufferingProxy, Target: target, Model: t.Model, At: at,
			Message: fmt.Sprintf("the response (Content-Type %q) is not an event stream: the stream was not streamed", ct),
			Hint:    BufferingHint,
		}, true
	}
	n := len(t.Chunks)
	if n < d.cfg.BurstMinChunks || t.Streaming.CacheHit() {
		return Detection{}, false
	}
	burst := t.Chunks[n-1].Sub(t.Chunks[0])
	ttft := t.TTFT()
	if ttft <= 0 || burst > d.cfg.BurstGap*time.Duration(n-1) ||
		float64(burst) > d.cfg.BurstShare*float64(ttft) {
		return Detection{}, false
	}
	return Detection{
		Kind: KindBufferingProxy, Target: t.Target, Model: t.Model, At: t.Chunks[0],
		Observed: burst.Seconds(), Baseline: ttft.Seconds(),
		Message: fmt.Sprintf("all %d chunks arrived within %v after %v of silence: the stream was buffered%s",
			n, burst, ttft, accelNote(t.Streaming)),
		Hint: BufferingHint,
	}, true
}

// notEventStream finds a successful response that was not an event stream
// (a tokenpace.KindContentType error) in t or, for a Router call that
// recovered from it, in one of its attempts; it returns the Content-Type,
// the target, and when the response came (or the attempt ended).
func notEventStream(t *tokenpace.Timing) (ct, target string, at time.Time, ok bool) {
	var se *tokenpace.StreamError
	if errors.As(t.Err, &se) && se.Kind == tokenpace.KindContentType {
		return se.Detail, t.Target, endOr(t.Headers, t.End), true
	}
	for _, a := range t.Attempts {
		if errors.As(a.Err, &se) && se.Kind == tokenpace.KindContentType {
			return se.Detail, a.Target, a.End, true
		}
	}
	return "", "", time.Time{}, false
}

// accelNote names what the response lacked of the headers that keep
// proxies from buffering, for the Message of a burst.
func accelNote(h tokenpace.StreamHeaders) string {
	if h.ContentType == "" || h.AccelBuffering == "no" {
		return "" // not recorded, or asked for no buffering
	}
	return "; the response had no X-Accel-Buffering: no"
}

// stalest returns an empty baseline for a new pair: a new one, or past
// maxSeries pairs that of the pair observed least recently, which it
// forgets. d.mu is held.
func (d *Detector) stalest() *baseline {
	if len(d.baselines) < maxSeries {
		return &baseline{tps: make([]float64, 0, d.cfg.BaselineSize)}
	}
	var oldest seriesKey
	var b *baseline
	for k, v := range d.baselines {
		if b == nil || v.seen < b.seen {
			oldest, b = k, v
		}
	}
	delete(d.baselines, oldest)
	b.tps, b.next = b.tps[:0], 0
	return b
}

func (b *baseline) add(v float64) {
	if len(b.tps) < cap(b.tps) {
		b.tps = append(b.tps, v)
		return
	}
	b.tps[b.next] = v
	b.next = (b.next + 1) % len(b.tps)
}

// median of the ring, without allocating for rings up to 64 long.
func (b *baseline) median() float64 {
	if len(b.tps) == 0 {
		return 0
	}
	var buf [64]float64
	s := append(buf[:0], b.tps...)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}
