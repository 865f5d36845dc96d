package simulate

// modelCatalog holds figures from each model's config.json on Hugging Face
// (num_hidden_layers, hidden_size, num_attention_heads,
// num_key_value_heads, head_dim, vocab_size, tie_word_embeddings) and the
// parameter count its model card or safetensors index states. Sliding-window
// attention (Gemma 2, Mistral) is not modelled: every layer attends to the
// whole context.
var modelCatalog = []catalogEntry[Model]{
	{Model{Name: "llama-3.2-1b", ParamsB: 1.236, Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 128256, TiedEmbeddings: true,
		Source: "huggingface.co/meta-llama/Llama-3.2-1B config.json"}, []string{"llama3.2-1b", "llama-3.2-1b-instruct", "meta-llama/llama-3.2-1b-instruct"}},
	{Model{Name: "llama-3.2-3b", ParamsB: 3.213, Layers: 28, Hidden: 3072, Heads: 24, KVHeads: 8, HeadDim: 128, Vocab: 128256, TiedEmbeddings: true,
		Source: "huggingface.co/meta-llama/Llama-3.2-3B config.json"}, []string{"llama3.2-3b", "llama-3.2-3b-instruct", "meta-llama/llama-3.2-3b-instruct"}},
	{Model{Name: "llama-3.1-8b", ParamsB: 8.030, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 128256,
		Source: "huggingface.co/meta-llama/Llama-3.1-8B config.json"}, []string{"llama3.1-8b", "llama-3-8b", "llama3-8b", "llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct", "meta-llama-3-8b-instruct", "llama-8b"}},
	{Model{Name: "llama-3.1-70b", ParamsB: 70.554, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 128256,
		Source: "huggingface.co/meta-llama/Llama-3.1-70B config.json"}, []string{"llama3.1-70b", "llama-3-70b", "llama3-70b", "llama-3.3-70b", "llama3.3-70b", "llama-3.1-70b-instruct", "llama-3.3-70b-instruct", "meta-llama/llama-3.1-70b-instruct", "meta-llama/llama-3.3-70b-instruct", "llama-70b"}},
	{Model{Name: "llama-3.1-405b", ParamsB: 405.853, Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128, Vocab: 128256,
		Source: "huggingface.co/meta-llama/Llama-3.1-405B config.json"}, []string{"llama3.1-405b", "llama-3.1-405b-instruct", "meta-llama/llama-3.1-405b-instruct", "llama-405b"}},
	{Model{Name: "mistral-7b", ParamsB: 7.248, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32768,
		Source: "huggingface.co/mistralai/Mistral-7B-v0.3 config.json"}, []string{"mistral-7b-v0.3", "mistral-7b-instruct", "mistral-7b-instruct-v0.3", "mistralai/mistral-7b-instruct-v0.3"}},
	{Model{Name: "mistral-nemo-12b", ParamsB: 12.248, Layers: 40, Hidden: 5120, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 131072,
		Source: "huggingface.co/mistralai/Mistral-Nemo-Base-2407 config.json"}, []string{"mistral-nemo", "nemo-12b", "mistral-nemo-instruct-2407", "mistralai/mistral-nemo-instruct-2407"}},
	{Model{Name: "mixtral-8x7b", ParamsB: 46.703, ActiveParamsB: 12.879, Experts: 8, ActiveExperts: 2, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32000,
		Source: "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json; 46.7B total, 12.9B active per Mistral's announcement"}, []string{"mixtral", "mixtral-8x7b-instruct", "mixtral-8x7b-instruct-v0.1", "mistralai/mixtral-8x7b-instruct-v0.1"}},
	{Model{Name: "qwen2.5-0.5b", ParamsB: 0.494, Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2, HeadDim: 64, Vocab: 151936, TiedEmbeddings: true,
		Source: "huggingface.co/Qwen/Qwen2.5-0.5B config.json"}, []string{"qwen2.5-0.5b-instruct", "qwen/qwen2.5-0.5b-instruct"}},
	{Model{Name: "qwen2.5-1.5b", ParamsB: 1.544, Layers: 28, Hidden: 1536, Heads: 12, KVHeads: 2, HeadDim: 128, Vocab: 151936, TiedEmbeddings: true,
		Source: "huggingface.co/Qwen/Qwen2.5-1.5B config.json"}, []string{"qwen2.5-1.5b-instruct", "qwen/qwen2.5-1.5b-instruct"}},
	{Model{Name: "qwen2.5-3b", ParamsB: 3.086, Layers: 36, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 128, Vocab: 151936, TiedEmbeddings: true,
		Source: "huggingface.co/Qwen/Qwen2.5-3B config.json"}, []string{"qwen2.5-3b-instruct", "qwen/qwen2.5-3b-instruct"}},
	{Model{Name: "qwen2.5-7b", ParamsB: 7.616, Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064,
		Source: "huggingface.co/Qwen/Qwen2.5-7B config.json"}, []string{"qwen2.5-7b-instruct", "qwen/qwen2.5-7b-instruct", "qwen2.5-coder-7b"}},
	{Model{Name: "qwen2.5-14b", ParamsB: 14.770, Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064,
		Source: "huggingface.co/Qwen/Qwen2.5-14B config.json"}, []string{"qwen2.5-14b-instruct", "qwen/qwen2.5-14b-instruct"}},
	{Model{Name: "qwen2.5-32b", ParamsB: 32.764, Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064,
		Source: "huggingface.co/Qwen/Qwen2.5-32B config.json"}, []string{"qwen2.5-32b-instruct", "qwen/qwen2.5-32b-instruct", "qwen2.5-coder-32b"}},
	{Model{Name: "qwen2.5-72b", ParamsB: 72.706, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 152064,
		Source: "huggingface.co/Qwen/Qwen2.5-72B config.json"}, []string{"qwen2.5-72b-instruct", "qwen/qwen2.5-72b-instruct"}},
	{Model{Name: "phi-3-mini", ParamsB: 3.821, Layers: 32, Hidden: 3072, Heads: 32, KVHeads: 32, HeadDim: 96, Vocab: 32064,
		Source: "huggingface.co/microsoft/Phi-3-mini-4k-instruct config.json"}, []string{"phi3-mini", "phi-3-mini-4k-instruct", "microsoft/phi-3-mini-4k-instruct", "phi-3-mini-128k-instruct"}},
	{Model{Name: "gemma-2-2b", ParamsB: 2.614, Layers: 26, Hidden: 2304, Heads: 8, KVHeads: 4, HeadDim: 256, Vocab: 256000, TiedEmbeddings: true,
		Source: "huggingface.co/google/gemma-2-2b config.json"}, []string{"gemma2-2b", "gemma-2-2b-it", "google/gemma-2-2b-it"}},
	{Model{Name: "gemma-2-9b", ParamsB: 9.242, Layers: 42, Hidden: 3584, Heads: 16, KVHeads: 8, HeadDim: 256, Vocab: 256000, TiedEmbeddings: true,
		Source: "huggingface.co/google/gemma-2-9b config.json"}, []string{"gemma2-9b", "gemma-2-9b-it", "google/gemma-2-9b-it"}},
	{Model{Name: "gemma-2-27b", ParamsB: 27.227, Layers: 46, Hidden: 4608, Heads: 32, KVHeads: 16, HeadDim: 128, Vocab: 256000, TiedEmbeddings: true,
		Source: "huggingface.co/google/gemma-2-27b config.json"}, []string{"gemma2-27b", "gemma-2-27b-it", "google/gemma-2-27b-it"}},
}
