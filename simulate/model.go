package simulate

import "math"

// Model is a transformer's shape: what sets its weight bytes, FLOPs per
// token and KV-cache bytes per token. A Model from the catalog
// (LookupModel) or from plain numbers (CustomModel) goes into a Deployment.
type Model struct {
	// Name is the catalog name, e.g. "llama-3.1-8b"; free text otherwise.
	Name string
	// ParamsB is the total parameter count in billions.
	ParamsB float64
	// ActiveParamsB is the parameters used per token in billions for a
	// mixture of experts; zero means ParamsB (a dense model).
	ActiveParamsB float64
	// Experts is the number of experts per MoE layer; zero means dense.
	Experts int
	// ActiveExperts is how many experts each token is routed to; zero
	// means dense.
	ActiveExperts int
	// Layers is the number of transformer blocks.
	Layers int
	// Hidden is the model (embedding) dimension.
	Hidden int
	// Heads is the number of attention (query) heads.
	Heads int
	// KVHeads is the number of key/value heads (grouped-query attention);
	// zero means Heads.
	KVHeads int
	// HeadDim is the dimension of one head; zero means Hidden / Heads.
	HeadDim int
	// KVHeadDim is the dimension of one cached key or value head where it
	// is not HeadDim: multi-head latent attention (DeepSeek V2 and V3)
	// caches one compressed latent a token a layer, written as one KV head
	// of half the latent's size; zero means HeadDim.
	KVHeadDim int
	// Vocab is the vocabulary size; zero means the embedding is not
	// counted apart from the other weights.
	Vocab int
	// TiedEmbeddings is true when the output projection reuses the input
	// embedding. Untied input embeddings are looked up, not streamed, so
	// they count toward memory but not toward bytes read per step.
	TiedEmbeddings bool
	// Context is the longest sequence, prompt and output together, in
	// tokens (config.json's max_position_embeddings): a server answers
	// 400 to a request over it, as vLLM does. Zero means no limit.
	Context int
	// Source says where the figures come from.
	Source string
}

func (m Model) kvHeads() int {
	if m.KVHeads > 0 {
		return m.KVHeads
	}
	return m.Heads
}

func (m Model) headDim() int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	if m.Heads > 0 {
		return m.Hidden / m.Heads
	}
	return 0
}

func (m Model) active() float64 {
	if m.ActiveParamsB > 0 {
		return m.ActiveParamsB * 1e9
	}
	return m.ParamsB * 1e9
}

// inputEmbedding is the parameter count of an untied input embedding: held
// in memory, looked up a row at a time, never streamed whole.
func (m Model) inputEmbedding() float64 {
	if m.TiedEmbeddings {
		return 0
	}
	return float64(m.Vocab) * float64(m.Hidden)
}

// FLOPsPerToken is the matrix-multiply work for one token outside
// attention: 2 FLOPs per active parameter that multiplies it.
func (m Model) FLOPsPerToken() float64 { return 2 * (m.active() - m.inputEmbedding()) }

// headFLOPs is the output projection's share of FLOPsPerToken: 2 FLOPs
// per vocabulary entry per hidden unit; zero when Vocab is not given.
func (m Model) headFLOPs() float64 { return 2 * float64(m.Vocab) * float64(m.Hidden) }

// AttentionFLOPsPerPair is the attention work (QKᵀ and AV) one query token
// spends on one earlier token of its context: 4 · layers · heads · head_dim.
func (m Model) AttentionFLOPsPerPair() float64 {
	return 4 * float64(m.Layers) * float64(m.Heads) * float64(m.headDim())
}

// KVBytesPerToken is the KV cache one token holds: 2 (K and V) · layers ·
// KV heads · KV head dimension · bytes per element.
func (m Model) KVBytesPerToken(kvBits float64) float64 {
	return 2 * float64(m.Layers) * float64(m.kvHeads()) * float64(m.kvHeadDim()) * kvBits / 8
}

// kvHeadDim is KVHeadDim, or the head dimension when it is not set.
func (m Model) kvHeadDim() int {
	if m.KVHeadDim > 0 {
		return m.KVHeadDim
	}
	return m.headDim()
}

// WeightBytes is the memory the weights take at p.
func (m Model) WeightBytes(p Precision) float64 { return m.ParamsB * 1e9 * p.BytesPerWeight() }

// StreamedBytes is the weight bytes one forward pass over tokens tokens
// reads at p. A dense model reads every weight but the input embedding; a
// mixture of experts reads its shared weights and the experts the tokens
// were routed to, in expectation 1 − (1 − active/experts)^tokens of them.
func (m Model) StreamedBytes(p Precision, tokens int) float64 {
	total := m.ParamsB*1e9 - m.inputEmbedding()
	if m.Experts > m.ActiveExperts && m.ActiveExperts > 0 && m.ActiveParamsB > 0 && tokens > 0 {
		perExpert := (m.ParamsB - m.ActiveParamsB) * 1e9 / float64(m.Experts-m.ActiveExperts)
		shared := total - perExpert*float64(m.Experts)
		miss := 1 - float64(m.ActiveExperts)/float64(m.Experts)
		touched := 1 - pow(miss, tokens)
		total = shared + perExpert*float64(m.Experts)*touched
	}
	return total * p.BytesPerWeight()
}

// pow is x^n for a small integer n ≥ 0, by squaring.
func pow(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// Validate reports an impossible model.
func (m Model) Validate() error {
	if !(m.ParamsB > 0) || math.IsInf(m.ParamsB, 1) {
		return &InvalidError{Field: "model parameters (billions)", Value: m.ParamsB, Reason: "must be positive and finite"}
	}
	if !(m.ActiveParamsB >= 0) || m.ActiveParamsB > m.ParamsB {
		return &InvalidError{Field: "model active parameters (billions)", Value: m.ActiveParamsB, Reason: "must be in [0, total parameters]"}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"model layers", m.Layers}, {"model hidden size", m.Hidden}, {"model heads", m.Heads}} {
		if f.v <= 0 {
			return &InvalidError{Field: f.name, Value: f.v, Reason: "must be positive"}
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"model KV heads", m.KVHeads}, {"model head dimension", m.HeadDim}, {"model KV head dimension", m.KVHeadDim}, {"model vocabulary", m.Vocab}, {"model experts", m.Experts}, {"model active experts", m.ActiveExperts}} {
		if f.v < 0 {
			return &InvalidError{Field: f.name, Value: f.v, Reason: "must not be negative"}
		}
	}
	if m.headDim() <= 0 {
		return &InvalidError{Field: "model head dimension", Value: m.headDim(), Reason: "must be positive"}
	}
	if 2*(m.active()-m.inputEmbedding()) <= 0 {
		return &InvalidError{Field: "model vocabulary", Value: m.Vocab, Reason: "embedding larger than the model"}
	}
	return nil
}

// ModelShape holds the optional architecture figures of a custom model;
// a zero field is taken from the catalog's dense model closest in size.
type ModelShape struct {
	Layers  int // transformer blocks; zero: from the nearest catalog model
	Hidden  int // model dimension; zero: from the nearest catalog model
	KVHeads int // key/value heads; zero: from the nearest catalog model
	HeadDim int // head dimension; zero: from the nearest catalog model
	// Vocab is the vocabulary size. Zero means not given (never borrowed,
	// as a tokenizer is the model's own): every parameter is then streamed
	// and multiplies every token, logits for every prompt token included.
	// Given, the untied input embedding is looked up rather than streamed,
	// and a prompt computes logits for its last token only.
	Vocab int
	// TiedEmbeddings: the input embedding is the output projection's
	// matrix, streamed for the logits (Llama 3.2 1B and 3B, Qwen2.5 up
	// to 3B, Gemma).
	TiedEmbeddings bool
}

// CustomModel is a dense model of paramsB billion parameters. Its
// attention shape comes from s, with zero fields borrowed from the dense
// catalog model nearest in size (so a bare "--params-b 70" has the KV cache
// of a Llama 3.1 70B).
func CustomModel(paramsB float64, s ModelShape) (Model, error) {
	if !(paramsB > 0) || math.IsInf(paramsB, 1) {
		return Model{}, &InvalidError{Field: "model parameters (billions)", Value: paramsB, Reason: "must be positive and finite"}
	}
	if s.Layers < 0 || s.Hidden < 0 || s.KVHeads < 0 || s.HeadDim < 0 || s.Vocab < 0 {
		return Model{}, &InvalidError{Field: "model shape", Value: s, Reason: "must not be negative"}
	}
	var near Model
	for _, e := range modelCatalog {
		if e.v.Experts > 0 {
			continue
		}
		if near.ParamsB == 0 || absf(e.v.ParamsB-paramsB) < absf(near.ParamsB-paramsB) {
			near = e.v
		}
	}
	m := Model{
		Name:    "custom",
		ParamsB: paramsB,
		Layers:  orShape(s.Layers, near.Layers),
		Hidden:  orShape(s.Hidden, near.Hidden),
		KVHeads: orShape(s.KVHeads, near.kvHeads()),
		HeadDim: orShape(s.HeadDim, near.headDim()),
		Vocab:   s.Vocab,
		Source:  "user-supplied figures; unset shape from " + near.Name,

		TiedEmbeddings: s.TiedEmbeddings,
	}
	m.Heads = max(1, m.Hidden/m.HeadDim)
	m.KVHeads = min(m.KVHeads, m.Heads)
	return m, m.Validate()
}

func orShape(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Models returns the catalog of models.
func Models() []Model { return values(modelCatalog) }

// LookupModel finds a model by name or alias, ignoring case and punctuation
// ("llama-3.1-8b", "Llama-3.1-8B-Instruct", "mixtral-8x7b", "qwen2.5-7b").
// An unknown name yields a *UnknownNameError listing the known names.
func LookupModel(name string) (Model, error) {
	return lookup("model", modelCatalog, name, func(m Model) string { return m.Name })
}
