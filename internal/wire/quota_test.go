package wire

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestQuotaSpent: a 429 whose error says the balance or quota is spent
// (Zhipu's code "1113", as a string or, from another front, an Anthropic
// envelope; its Coding Plan's usage limits "1308", "1310" and "1316"; OpenAI's "insufficient_quota"; Ollama's cloud past a usage
// limit, in its words; Volcengine Ark's account limits, "SetLimitExceeded",
// "QuotaExceeded" and "AccountQuotaExceeded"; Workers AI's daily
// allocation, its code and words together; LongCat's daily quota, its
// code and words together; Moonshot's tokens per day and Kimi Code's
// 5-hour and monthly limits, a rate limit's type and their words;
// Moonshot's balance spent, "exceeded_current_quota_error") is
// marked not to be sent
// again; a 429 of a rate limit, another status with those words and a
// body that is no error object are not, and the body stays readable.
func TestQuotaSpent(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{429, `{"error":{"code":"1113","message":"余额不足或无可用资源包,请充值。"}}`, true},
		{429, `{"type":"error","error":{"type":"rate_limit_error","code":"1113","message":"[1113][Insufficient balance or no resource package. Please recharge.]"}}`, true},
		{429, `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, true},
		{429, `{"error":{"code":"1302","message":"您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。"}}`, false},
		{429, `{"error":{"code":"1308","message":"已达到 5 小时的使用上限。您的限额将在 2026-12-07 15:00:05 重置。"},"request_id":"2026120713351420b05cc4f9bbb4e6c"}`, true},
		{429, `{"error":{"code":"1308","message":"Usage limit reached for 5 hour. Your limit will reset at 2026-12-07 19:22:49"}}`, true},
		{429, `{"error":{"code":"1310","message":"Weekly/Monthly Limit Exhausted. Your limit will reset at 2026-12-10 05:53:09"}}`, true},
		{429, `{"error":{"code":"1316","message":"Usage limit reached for the past 5 hours. Your limit will reset at 2026-12-07 18:30:00"}}`, true},
		{429, `{"error":{"code":"1305","message":"该模型当前访问量过大，请您稍后再试"}}`, false},
		{429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, false},
		{400, `{"error":{"code":"1113","message":"余额不足或无可用资源包,请充值。"}}`, false},
		{429, `1113 insufficient_quota`, false},
		{429, `{"error":{"message":"429 Too Many Requests: you've reached your weekly usage limit, please wait or upgrade to continue","type":"api_error","param":null,"code":null}}`, true},
		{429, `{"error":{"message":"you (lena) have reached your session usage limit, upgrade for higher limits: https://ollama.com/upgrade"}}`, true},
		{429, `{"error":{"message":"You have reached your usage limit, please slow down"}}`, false},
		{503, `{"error":{"message":"you've reached your hourly usage limit, please wait or upgrade to continue"}}`, false},
		{429, `{"error":{"code":"SetLimitExceeded","message":"Your account [2101304184] has reached the set inference limit for the [doubao-seed-1-6-250615] model, and the model service has been paused.","param":"","type":"TooManyRequests"}}`, true},
		{429, `{"error":{"code":"QuotaExceeded","message":"The account (2101304184) has exhausted the free trial quota of the model (doubao-seed-1-6-250615).","param":"","type":"TooManyRequests"}}`, true},
		{429, `{"error":{"code":"AccountQuotaExceeded","message":"You have exceeded the 5-hour usage quota. It will reset at 2026-12-07 16:59:53 +0800 CST.","param":"","type":"TooManyRequests"}}`, true},
		{429, `{"error":{"code":"ModelAccountTpmRateLimitExceeded","message":"TPM (Tokens Per Minute) limit of the model is exceeded.","param":"","type":"TooManyRequests"}}`, false},
		{429, `{"error":{"code":"ServerOverloaded","message":"The service is currently unable to handle additional requests due to server overload.","param":"","type":"TooManyRequests"}}`, false},
		{403, `{"error":{"code":"QuotaExceeded","message":"The account has exhausted the free trial quota.","param":"","type":"Forbidden"}}`, false},
		// Workers AI's errors array, as BoundErrorBody makes it an error object.
		{429, `{"error":{"message":"you have used up your daily free allocation of 10,000 neurons, please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage.","code":"4006"}}`, true},
		{429, `{"error":{"message":"You have used up your daily free allocation of 10,000 neurons. Please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage.","code":"3036"}}`, true},
		{429, `{"error":{"message":"No more data centers to forward the request to","code":"3040"}}`, false},
		{429, `{"error":{"message":"Too many requests","code":"4006"}}`, false},
		// LongCat's daily quota: its code is a rate limit's, its words are not.
		{429, `{"error":{"code":"too_many_requests","message":"AppId:**a3f9 达到使用量上限","type":"rate_limit_error"}}`, true},
		{429, `{"error":{"code":"too_many_requests","message":"Rate limit exceeded","type":"rate_limit_error"}}`, false},
		{429, `{"error":{"code":"rate_limit_exceeded","message":"达到使用量上限"}}`, false},
		// Moonshot's tokens per day and Kimi Code's plan limits: a rate
		// limit's type, the words of a limit that lasts hours.
		{429, `{"error":{"message":"Your account org-5f0c2a / proj-91e7d4 <ak-f94zc> request reached organization TPD rate limit, current: 1526210, limit: 1500000","type":"rate_limit_reached_error"}}`, true},
		{429, `{"error":{"message":"Your account org-5f0c2a <ak-f94zc> request reached organization max RPM: 20, please try again after 1 seconds","type":"rate_limit_reached_error"}}`, false},
		{429, `{"error":{"message":"We're receiving too many requests at the moment. Please wait a moment and try again.","type":"rate_limit_reached_error"}}`, false},
		{429, `{"error":{"message":"You've reached your usage limit for this period. Your quota will be refreshed in the next period. Upgrade to get more: https://www.kimi.com/code/console?from=limit-upgrade","type":"rate_limit_error"}}`, true},
		{429, `{"error":{"message":"You've reached kimi monthly usage limit for this billing cycle. Your quota will be refreshed in the next cycle.","type":"rate_limit_error"}}`, true},
		{429, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"rate_limit_error"}}`, false},
		{429, `{"error":{"message":"request reached organization TPD rate limit","type":"rate_limit_error"}}`, false},
		// Moonshot's balance spent: its own type.
		{429, `{"error":{"message":"Your account org-5f0c2a <ak-f94zc> is suspended, please check your plan and billing details","type":"exceeded_current_quota_error"}}`, true},
	} {
		res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		got := QuotaSpent(res).Header.Get("X-Should-Retry") == "false"
		if got != tc.want {
			t.Errorf("QuotaSpent(%d %s) marked %v, want %v", tc.status, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(res.Body); string(b) != tc.body {
			t.Errorf("%d %s: body after = %q, want it whole", tc.status, tc.body, b)
		}
	}
}
