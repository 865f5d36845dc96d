package codec

// Structured reports whether r asks for a structured answer: a chat
// request's response_format, or a Responses request's text.format, of
// type json_schema or json_object. A server constrains such an answer to
// a JSON object from its first token (OpenAI's Structured Outputs,
// vLLM's and llama.cpp's grammars), whatever messages come before it: a
// continuation, sent the output so far as an assistant message, answers
// a new object, which after the caller's half of one is no JSON at all.
// So such an answer is restarted, never continued.
func Structured(r Request) bool {
	switch r := r.(type) {
	case chat:
		f := r.p.ResponseFormat
		return f.OfJSONSchema != nil || f.OfJSONObject != nil
	case response:
		f := r.p.Text.Format
		return f.OfJSONSchema != nil || f.OfJSONObject != nil
	}
	return false
}
