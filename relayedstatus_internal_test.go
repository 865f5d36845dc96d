package tokenpace

import "testing"

// TestRelayedStatus: only a whole number from 400 to 599 in an error
// object's status_code names the status its upstream answered with.
func TestRelayedStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"code":400,"message":"request exceeds the available context size","status_code":400,"type":"exceed_context_size_error"}`, 400},
		{`{"message":"Loading model","status_code":503,"type":"backend_error"}`, 503},
		{`{"message":"m","status_code":"400"}`, 0},
		{`{"message":"m","status_code":400.5}`, 0},
		{`{"message":"m","status_code":200}`, 0},
		{`{"message":"m","status_code":600}`, 0},
		{`{"message":"m","code":400}`, 0},
		{`{"message":"m","http_status_code":422}`, 0},
		{`{"type":"server_error","message":"m","statusCode":400,"isRetryable":false}`, 400},
		{`{"type":"server_error","message":"m","statusCode":503,"isRetryable":true}`, 503},
		{`{"message":"m","statusCode":"400"}`, 0},
		{`"a message"`, 0},
		{``, 0},
	} {
		if got := relayedStatus(tt.raw); got != tt.want {
			t.Errorf("relayedStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

// TestTypeStatus: only TGI's names of a refused request, and of an
// overloaded server, give a status; its failure during generation (424
// in TGI, the server's) and every other name give none.
func TestTypeStatus(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		want int
	}{
		{"validation", 422}, {"template_error", 422}, {"tool_error", 422}, {"missing_template_variable", 422},
		{"overloaded", 429}, {"generation", 0}, {"incomplete_generation", 0}, {"invalid_request_error", 0}, {"", 0},
	} {
		if got := typeStatus(tt.typ); got != tt.want {
			t.Errorf("typeStatus(%q) = %d, want %d", tt.typ, got, tt.want)
		}
	}
}

// TestOmniRouteStatus: only the pairs OmniRoute gives a refused request,
// or the model it names, give a status; those of the accounts behind the
// route (refused, unpaid, past their quota) give none, so that a breaker
// counts them.
func TestOmniRouteStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"message":"m","type":"invalid_request_error","code":"bad_request"}`, 400},
		{`{"message":"m","type":"invalid_request_error","code":"model_not_found"}`, 404},
		{`{"message":"m","type":"invalid_request_error","code":"model_not_supported"}`, 406},
		{`{"message":"m","type":"authentication_error","code":"invalid_api_key"}`, 0},
		{`{"message":"m","type":"billing_error","code":"payment_required"}`, 0},
		{`{"message":"m","type":"permission_error","code":"insufficient_quota"}`, 0},
		{`{"message":"m","type":"insufficient_quota","code":"insufficient_quota"}`, 0},
		{`{"message":"m","type":"invalid_request_error","code":400}`, 0},
		{``, 0},
	} {
		if got := omniRouteStatus(tt.raw); got != tt.want {
			t.Errorf("omniRouteStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

// TestFlatStatus: a flat Responses error event's status_code gives its
// status, but the 401, 402 and 403 of the accounts behind a relay.
func TestFlatStatus(t *testing.T) {
	for _, tt := range []struct {
		flat string
		want int
	}{
		{`{"type":"error","code":"bad_request","message":"m","status_code":400}`, 400},
		{`{"type":"error","code":"model_not_found","message":"m","status_code":404}`, 404},
		{`{"type":"error","code":"rate_limit_exceeded","message":"m","status_code":429}`, 429},
		{`{"type":"error","code":"bad_gateway","message":"m","status_code":502}`, 502},
		{`{"type":"error","code":"invalid_api_key","message":"m","status_code":401}`, 0},
		{`{"type":"error","code":"payment_required","message":"m","status_code":402}`, 0},
		{`{"type":"error","code":"insufficient_quota","message":"m","status_code":403}`, 0},
		{`{"type":"error","code":"bad_request","message":"m"}`, 0},
		{``, 0},
	} {
		if got := flatStatus(tt.flat); got != tt.want {
			t.Errorf("flatStatus(%s) = %d, want %d", tt.flat, got, tt.want)
		}
	}
}

// TestAISIXGuardStatus: AISIX's streamed guardrail block, type
// content_filter and no code, is its 422; the same type beside a code of
// another server's, Azure OpenAI's code content_filter under another type,
// and agentgateway's block are not AISIX's.
func TestAISIXGuardStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"message":"response blocked by content policy (guardrail 'g')","type":"content_filter"}`, 422},
		{`{"message":"blocked","type":"content_filter","code":"moderation_blocked"}`, 0},
		{`{"message":"filtered","type":"invalid_request_error","code":"content_filter"}`, 0},
		{`{"message":"m","type":"guardrail_blocked","code":"guardrail_intervention"}`, 0},
		{``, 0},
	} {
		if got := aisixGuardStatus(tt.raw); got != tt.want {
			t.Errorf("aisixGuardStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}

// TestOpenRouterStatus: OpenRouter's error object names its status by
// its code, beside OpenRouter's metadata; a code without that metadata,
// one that is no status, and the 401 and 402 of the account behind the
// route give none.
func TestOpenRouterStatus(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
	}{
		{`{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"m\"}}","provider_name":"OpenAI"}}`, 400},
		{`{"message":"This endpoint's maximum context length is 262000 tokens.","code":400,"metadata":{"provider_name":null}}`, 400},
		{`{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream connect error","provider_name":"Together"}}`, 502},
		{`{"message":"Provider returned error","code":429,"metadata":{"raw":"m is temporarily rate-limited upstream.","provider_name":"BaseTen"}}`, 429},
		{`{"code":502,"message":"Network connection lost.","metadata":{"error_type":"provider_unavailable"}}`, 502},
		{`{"message":"Provider returned error","code":403,"metadata":{"raw":"{}","provider_name":"Google AI Studio"}}`, 403},
		{`{"message":"m","code":401,"metadata":{"provider_name":"Anthropic","raw":"invalid x-api-key"}}`, 0},
		{`{"message":"m","code":402,"metadata":{"provider_name":null}}`, 0},
		{`{"code":502,"message":"Provider disconnected"}`, 0},
		{`{"message":"m","code":400,"metadata":{"user_id":"u"}}`, 0},
		{`{"message":"m","code":400,"metadata":{"error_type":7}}`, 0},
		{`{"message":"m","code":"400","metadata":{"provider_name":"OpenAI"}}`, 0},
		{`{"message":"m","code":400.5,"metadata":{"provider_name":"OpenAI"}}`, 0},
		{`{"message":"m","code":200,"metadata":{"provider_name":"OpenAI"}}`, 0},
		{`{"message":"m","code":1301,"metadata":{"provider_name":"Z.AI"}}`, 0},
		{`"a message"`, 0},
		{``, 0},
	} {
		if got := openRouterStatus(tt.raw); got != tt.want {
			t.Errorf("openRouterStatus(%s) = %d, want %d", tt.raw, got, tt.want)
		}
	}
}
