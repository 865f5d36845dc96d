package wire

import "regexp"

// XinferenceAnswer reports whether start, the start of a 2xx answer to a
// completions request or of one of its stream's events, comes from
// Xinference (xorbitsai/inference) by its shape, under uvicorn's Server
// header: its completion's id is the request's uuid1 (made by
// xinference/core/model.py, generate, for a backend that generates
// asynchronously: vLLM, SGLang), then object, created, model and choices
// in that order (xinference/model/llm/vllm/core.py,
// _convert_request_output_to_completion_chunk), spaced by Python's
// json.dumps in a stream and not in a whole answer (orjson). It passes a
// completions request's members to its backend as keyword arguments, and
// none reads a suffix or an echo (August 2026: the vLLM backend keeps the
// sampling parameters it knows, _sanitize_generate_config; the llama.cpp
// backend pops the suffix): a fill-in-the-middle request gets a
// completion of its prompt alone, an echo request its answer without its
// prompt, whole or streamed.
func XinferenceAnswer(start []byte) bool { return xinferenceAnswer.Match(start) }

var xinferenceAnswer = regexp.MustCompile(`^\s*\{"id": ?"[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", ?"object": ?"text_completion", ?"created": ?[0-9]+, ?"model": ?"(?:[^"\\]|\\.)*", ?"choices": ?\[`)
