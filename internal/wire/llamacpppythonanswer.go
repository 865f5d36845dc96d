package wire

import "regexp"

// LlamaCppPythonAnswer reports whether start, the start of a 2xx answer
// to a completions request or of one of its stream's events, comes from
// llama-cpp-python's server (abetlen/llama-cpp-python) by its shape,
// under uvicorn's Server header: its completion's id is "cmpl-" and a
// UUID with its dashes, then object, created, model and choices in that
// order, the text first in a choice (llama_cpp/llama.py,
// _create_completion), spaced by Python's json.dumps in a stream and not
// in a whole answer (FastAPI's JSONResponse). Since 0.3.7 (January 2025;
// 0.3.35 of August 2026 the same) it gives a suffix to the model between
// three tokens of id 0, its prefix, middle and suffix token ids fixed at
// 0 ("TODO: Fix"), never the model's own fill-in-the-middle tokens: the
// model reads the prompt and the suffix as one text and goes on after
// the suffix, and its answer is no middle; its /openapi.json tells some
// builds that keep the suffix (see LlamaCppPythonServers). It puts the
// prompt before a whole answer's text when asked to echo it, and never
// in a stream, which returns before it would.
func LlamaCppPythonAnswer(start []byte) bool { return llamaCppPythonAnswer.Match(start) }

var llamaCppPythonAnswer = regexp.MustCompile(`^\s*\{"id": ?"cmpl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ?"object": ?"text_completion", ?"created": ?[0-9]+, ?"model": ?"(?:[^"\\]|\\.)*", ?"choices": ?\[\{"text": ?`)
