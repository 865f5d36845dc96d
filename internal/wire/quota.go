package wire

import (
	"fmt"
	"net/http"
	"strings"
)

// Quotas spent.
//
// Some servers answer a request of an account that has run out of what it
// paid for with 429, the status of a rate limit, though waiting does not
// help: the answer stays the same until the account is paid for. Zhipu's
// and Z.ai's GLM API answer so with business code "1113" ("余额不足或无可用
// 资源包,请充值。", "Insufficient balance or no resource package":
// docs.z.ai/api-reference/api-code), and a GLM Coding Plan past its
// usage limit with "1308" (5 hours: "Usage limit reached for 5 hour.
// Your limit will reset at …", on open.bigmodel.cn "已达到 5 小时的使用上
// 限。…"), "1310" (a week or a month: "Weekly/Monthly Limit Exhausted. …")
// or, under its credits plans, "1316" ("Usage limit reached for the past 5
// hours …"): its clients' recorded bodies (LionSR/TeXRA#9865); its
// concurrency limit ("1302") and overload ("1305") clear in seconds.
// OpenAI answers with "insufficient_quota"
// (platform.openai.com/docs/guides/error-codes). openai-go sends every
// 429 again, twice by default, each after its back-off: time spent out
// of the caller's budget before it learns why. Ollama's cloud answers a
// request of an account past its session (some five hours), hourly or
// weekly usage limit with 429 and only words to say so, no code and no
// Retry-After: "you've reached your hourly usage limit, please wait or
// upgrade to continue", "you (<account>) have reached your weekly usage
// limit, upgrade for higher limits: …" (continuedev/continue#9233,
// #11444; NousResearch/hermes-agent#68832), as its body's bare string
// (ollama/ollama server/cloud_proxy.go copies ollama.com's answer) or,
// from Ollama 0.13 to 0.17, after the status line in an error object
// of type "api_error" (middleware/openai.go, writeError). Volcengine Ark
// (and BytePlus ModelArk) gives every 429 the type "TooManyRequests", its
// rate limits ("ModelAccountTpmRateLimitExceeded") and overload
// ("ServerOverloaded") as much as an account past the inference limit it
// set in its Safe Experience Mode ("SetLimitExceeded"), one whose free trial
// of the model is spent ("QuotaExceeded") and a Coding Plan past its 5-hour,
// weekly or monthly quota ("AccountQuotaExceeded", the reset hours away in
// its words): only those codes say that waiting seconds will not help
// (volcengine.com/docs/82379/1299023). Cloudflare Workers AI answers a
// free account past its daily allocation of neurons with 429 and code
// 3036 in its table of errors, 4006 as served (diegosouzapw/OmniRoute#6980,
// Rexezuge-CloudflareWorkers/Mail-Otter#88), "you have used up your daily
// free allocation of 10,000 neurons, …", in the errors array of its v4
// envelope (developers.cloudflare.com/workers-ai/platform/errors); it
// resets at midnight UTC. Its other 429, 3040 (no data center with
// capacity left), clears in seconds. Meituan's LongCat API answers an
// account past its daily token quota with 429, code "too_many_requests"
// and type "rate_limit_error", the words of any rate limit: only its
// message, "AppId:<id> 达到使用量上限" (usage limit reached), says it lasts
// until midnight Beijing time (a public diagnosis note quoting curl
// against api.longcat.chat; longcat.chat/platform/docs/faq for the daily
// quota). Moonshot's Kimi API answers an organization past its tokens
// per day with 429 of type "rate_limit_reached_error", the type of its
// limits per minute, and only the words "request reached organization TPD
// rate limit, current: …, limit: …" say that the day's tokens are spent
// (MoonshotAI/kimi-cli#1599, beside its RPM limit's "… max RPM: 20, please
// try again after 1 seconds"; platform.moonshot.ai's rate limits:
// concurrency, RPM, TPM and TPD); an organization whose balance is spent,
// or whose account is suspended, it answers with 429 of type
// "exceeded_current_quota_error" ("Your account … is suspended, please
// check your plan and billing details"; Moonshot's support on
// forum.moonshot.ai/t/429-insufficient-balance/244 names that type for a
// quota spent, apart from its rate limits). Kimi Code's membership API
// (api.kimi.com/coding/v1) answers a plan past its 5-hour window with 429
// and "You've reached your usage limit for this period. Your quota will
// be refreshed in the next period. …", and past its monthly limit with 429
// and "You've reached kimi monthly usage limit for this billing cycle. …"
// (kimi.com/code/docs, Error Reference: both under "Rate Limits &
// Quotas", beside its overload's 429, which clears in seconds). Sarvam AI
// answers an account whose credits are spent with 429 and code
// "insufficient_quota_error", its rate limit with "rate_limit_exceeded_error"
// (docs.sarvam.ai/api/errors-troubleshooting). Chutes counts each user's
// requests by their hash for three hours after the last and refuses a
// prompt sent over 5,000 times with 429 and FastAPI's {"detail": "Stop
// spamming this prompt, please..."} (chutesai/chutes-api
// api/invocation/router.py): every request sent again is counted too.
// ChatGPT's Codex backend, which bridges serve a ChatGPT plan's accounts
// from, answers an account past its plan's 5-hour or weekly limit with
// 429 of type "usage_limit_reached" (its message "The usage limit has
// been reached", beside plan_type, resets_at and resets_in_seconds), and
// one whose plan does not include Codex with 429 "usage_not_included":
// Codex itself reads both as fatal, not to be sent again (openai/codex
// codex-rs/core/src/client.rs, ErrorResponse). ChatMock relays the 429
// with only the message (RayBytes/ChatMock chatmock/routes_openai.py,
// chat_completions), so its words are the only sign.

// quotaCodes are the error codes, or types, of the 429s of QuotaSpent.
var quotaCodes = map[string]bool{
	"1113": true, "1308": true, "1310": true, "1316": true, "insufficient_quota": true,
	"SetLimitExceeded": true, "QuotaExceeded": true, "AccountQuotaExceeded": true,
	"exceeded_current_quota_error": true,
	"insufficient_quota_error":     true,
	"usage_limit_reached":          true, "usage_not_included": true,
}

// chatGPTUsageLimit is the message of the Codex backend's 429 for a
// ChatGPT plan past its usage limit, which ChatMock relays alone.
const chatGPTUsageLimit = "The usage limit has been reached"

// QuotaSpent returns res marked not to be sent again (X-Should-Retry:
// false) when it is a 429 whose error object says the account's balance
// or quota is spent, or its usage limit reached in Ollama's or
// ChatGPT's words. It reads the body, bounded already (BoundErrorBody),
// and puts it back. A Router's breaker still counts it: the route will
// answer the same to every request until the account is paid for; but
// Chutes' refusal of one prompt (see PromptSpam), which the route's
// other requests do not meet.
func QuotaSpent(res *http.Response) *http.Response {
	e, ok := errorOf(res, http.StatusTooManyRequests)
	if !ok || !quotaCodes[e.Type] && !quotaCodes[fmt.Sprint(e.Code)] && !ollamaUsageLimit(e.Message) && !workersAIAllocationSpent(e) && !longCatUsageCap(e) && !kimiLimitSpent(e) && !PromptSpam(e.Message) &&
		!strings.HasPrefix(e.Message, chatGPTUsageLimit) {
		return res
	}
	return markRetry(res, false)
}

// chutesPromptSpam is the whole message of Chutes' 429 for a prompt one
// user sent over 5,000 times within three hours.
const chutesPromptSpam = "Stop spamming this prompt, please..."

// PromptSpam reports whether msg, a 429's message, is Chutes' refusal of
// one prompt its user sent over 5,000 times within three hours. Chutes
// counts each user's requests by their hash (chutesai/chutes-api
// api/invocation/router.py) and serves the user's other prompts as
// before: the refusal is the request's, not the route's health, and a
// Router's breaker does not count it.
func PromptSpam(msg string) bool { return msg == chutesPromptSpam }

// ollamaUsageLimit reports whether msg is Ollama's cloud saying that an
// account has reached one of its usage limits, "… reached your <window>
// usage limit, " followed by "please wait or upgrade" or "upgrade for
// higher limits": a limit that clears in hours or days, not in the
// seconds openai-go waits.
func ollamaUsageLimit(msg string) bool {
	_, rest, ok := strings.Cut(msg, " reached your ")
	if !ok {
		return false
	}
	window, rest, ok := strings.Cut(rest, " usage limit, ")
	return ok && window != "" && !strings.Contains(window, " ") &&
		(strings.HasPrefix(rest, "please wait or upgrade") || strings.HasPrefix(rest, "upgrade for higher limits"))
}

// workersAIAllocationSpent reports whether e, the error object
// BoundErrorBody made of the first of Cloudflare's errors, is Workers
// AI's daily allocation spent: its code (3036 or 4006, numbers other
// servers may give other meanings) and its words together.
func workersAIAllocationSpent(e errorFields) bool {
	code := fmt.Sprint(e.Code)
	return (code == "3036" || code == "4006") && strings.Contains(strings.ToLower(e.Message), "daily free allocation")
}

// longCatUsageCap reports whether e is LongCat's daily quota spent: its
// code, which its rate limits share, and its words together.
func longCatUsageCap(e errorFields) bool {
	return fmt.Sprint(e.Code) == "too_many_requests" && strings.Contains(e.Message, "达到使用量上限")
}

// kimiLimitSpent reports whether e is Moonshot's tokens per day spent, or
// Kimi Code's 5-hour or monthly limit reached: the type of a rate limit
// and the words of a limit that lasts hours.
func kimiLimitSpent(e errorFields) bool {
	switch e.Type {
	case "rate_limit_reached_error":
		return strings.Contains(e.Message, " TPD rate limit")
	case "rate_limit_error":
		return strings.Contains(e.Message, "reached your usage limit for this period") ||
			strings.Contains(e.Message, "reached kimi monthly usage limit")
	}
	return false
}
