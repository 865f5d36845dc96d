// Package tokenpace calls LLMs over OpenAI-compatible streaming APIs with
// measured and enforced latency.
package tokenpace
