package tokenpace_test

import (
	"net/http"
	"testing"
	"testing/synctest"
)

// TestQuotaSpentNotSentAgain: Zhipu's GLM API answers a request of an
// account whose balance is spent with 429 and code "1113" (recorded from
// open.bigmodel.cn: testdata/conformance/zai-balance-spent-429.jsonl), and
// OpenAI one over its billing quota with 429 "insufficient_quota". Both
// say the same until the account is paid for, but openai-go sent each
// request twice more, each after its back-off, before the caller learnt
// why. They now reach the caller at once, their message kept; a 429 of a
// rate limit is still sent again. GitHub Models' daily limit
// (testdata/conformance/github-models-daily-limit-429.jsonl) asks in its
// Retry-After for a wait of an hour and a half, longer than openai-go
// waits: sent once too. So is Ollama's cloud past a session, hourly or
// weekly usage limit, its words the only sign (no code, no Retry-After),
// in the body of today's passthrough
// (testdata/conformance/ollama-cloud-usage-limit-429.jsonl) and in that
// of Ollama 0.13 to 0.17
// (testdata/conformance/ollama-0.13-cloud-usage-limit-429-api-error.jsonl):
// before, each was sent 3 times. Volcengine Ark answers an account past
// the inference limit it set itself (Safe Experience Mode), one whose free
// trial is spent and a Coding Plan past its 5-hour quota with 429 of type
// "TooManyRequests", as it does its rate limits; only the codes
// "SetLimitExceeded", "QuotaExceeded" and "AccountQuotaExceeded" tell them
// apart (testdata/conformance/ark-set-limit-exceeded-429.jsonl,
// ark-coding-plan-quota-429.jsonl): each was sent 3 times, now once; its
// "ServerOverloaded" is still sent again. Cloudflare Workers AI answers a
// free account past its daily neurons with 429 and code 4006 (3036 in its
// docs) in its v4 envelope's errors array
// (testdata/conformance/workers-ai-daily-allocation-429.jsonl), the same
// until midnight UTC: sent 3 times, now once; its 3040 (no data center
// with capacity left) is still sent again. Zhipu's and Z.ai's GLM Coding
// Plan past its 5-hour limit answers 429 with code "1308"
// (testdata/conformance/zhipu-coding-plan-5h-limit-1308-429.jsonl), past
// its weekly or monthly limit "1310", and under the credits plans "1316":
// each the same for hours, each sent 3 times, now once; its concurrency
// limit "1302" is still sent again. Meituan's LongCat API answers an
// account past its daily token quota with 429, code "too_many_requests"
// and type "rate_limit_error", a rate limit's words, and only its message
// ("达到使用量上限", usage limit reached) says it lasts until midnight
// Beijing time (testdata/conformance/longcat-daily-usage-cap-429.jsonl):
// sent 3 times, now once; a 429 of the same code without those words is
// still sent again. Moonshot's Kimi API answers an organization past its
// tokens per day with 429 of type "rate_limit_reached_error", its limits
// per minute's type, and only its words say the day is spent
// (testdata/conformance/moonshot-tpd-limit-429.jsonl); Kimi Code answers a
// plan past its 5-hour window or its month with 429 "rate_limit_error"
// (testdata/conformance/kimi-code-period-limit-429.jsonl): each sent 3
// times, now once; Moonshot's RPM limit and Kimi Code's overload are still
// sent again. Moonshot answers an organization whose balance is spent
// with 429 of type "exceeded_current_quota_error"
// (forum.moonshot.ai/t/429-insufficient-balance/244): sent 3 times, now
// once.
// Sarvam AI answers an account whose credits are spent with
// 429 and code "insufficient_quota_error", beside its rate limit's
// "rate_limit_exceeded_error" (testdata/conformance/sarvam-credits-exhausted-429.jsonl):
// sent 3 times, now once; the rate limit is still sent again. Chutes
// refuses a user's prompt sent over 5,000 times within three hours with
// 429 and FastAPI's {"detail": "Stop spamming this prompt, please..."}
// (testdata/conformance/chutes-prompt-spam-429.jsonl), each request sent
// again counted too: sent 3 times, now once; its infrastructure's 429
// ("Infrastructure is at maximum capacity, …") is still sent again.
func TestQuotaSpentNotSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		zai := fixture(t, "zai-balance-spent-429")
		github := fixture(t, "github-models-daily-limit-429")
		ollama := fixture(t, "ollama-cloud-usage-limit-429")
		ollama13 := fixture(t, "ollama-0.13-cloud-usage-limit-429-api-error")
		workersAI := fixture(t, "workers-ai-daily-allocation-429")
		zaiPlan := fixture(t, "zhipu-coding-plan-5h-limit-1308-429")
		longcat := fixture(t, "longcat-daily-usage-cap-429")
		moonshotDay := fixture(t, "moonshot-tpd-limit-429")
		kimiPlan := fixture(t, "kimi-code-period-limit-429")
		ark := fixture(t, "ark-set-limit-exceeded-429")
		chutesSpam := fixture(t, "chutes-prompt-spam-429")
		sarvam := fixture(t, "sarvam-credits-exhausted-429")
		arkPlan := fixture(t, "ark-coding-plan-quota-429")
		handlers := map[string]http.Handler{
			"zai":         replay(zai.recording),
			"zaiplan":     replay(zaiPlan.recording),
			"zaiweekly":   answer429(`{"error":{"code":"1310","message":"Weekly/Monthly Limit Exhausted. Your limit will reset at 2026-12-10 05:53:09"}}`),
			"zaicredits":  answer429(`{"error":{"code":"1316","message":"Usage limit reached for the past 5 hours. Your limit will reset at 2026-12-07 18:30:00"}}`),
			"zaibusy":     answer429(`{"error":{"code":"1302","message":"High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits"}}`),
			"github":      replay(github.recording),
			"ollama":      replay(ollama.recording),
			"ollama13":    replay(ollama13.recording),
			"ark":         replay(ark.recording),
			"longcat":     replay(longcat.recording),
			"longcatbusy": answer429(`{"error":{"code":"too_many_requests","message":"Rate limit exceeded","type":"rate_limit_error"}}`),
			"arkplan":     replay(arkPlan.recording),
			"workers":     replay(workersAI.recording),
			"workers3036": answer429(`{"result":null,"success":false,"errors":[{"code":3036,"message":"You have used up your daily free allocation of 10,000 neurons. Please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage."}],"messages":[]}`),
			"workersfull": answer429(`{"result":null,"success":false,"errors":[{"code":3040,"message":"No more data centers to forward the request to"}],"messages":[]}`),
			"arktrial":    answer429(`{"error":{"code":"QuotaExceeded","message":"The account (2101304184) has exhausted the free trial quota of the model (doubao-seed-1-6-250615).","param":"","type":"TooManyRequests"}}`),
			"arkbusy":     answer429(`{"error":{"code":"ServerOverloaded","message":"The service is currently unable to handle additional requests due to server overload.","param":"","type":"TooManyRequests"}}`),
			"openai":      answer429(`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`),
			"limited":     answer429(`{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`),
			"moonshotday": replay(moonshotDay.recording),
			"moonshotrpm": answer429(`{"error":{"message":"Your account org-5f0c2a <ak-f94zc> request reached organization max RPM: 20, please try again after 1 seconds","type":"rate_limit_reached_error"}}`),
			"kimiplan":    replay(kimiPlan.recording),
			"kimimonth":   answer429(`{"error":{"message":"You've reached kimi monthly usage limit for this billing cycle. Your quota will be refreshed in the next cycle.","type":"rate_limit_error"}}`),
			"kimibusy":    answer429(`{"error":{"message":"The engine is currently overloaded, please try again later","type":"rate_limit_error"}}`),
			"moonshotpay": answer429(`{"error":{"message":"Your account org-5f0c2a <ak-f94zc> is suspended, please check your plan and billing details","type":"exceeded_current_quota_error"}}`),
			"sarvam":      replay(sarvam.recording),
			"chutesspam":  replay(chutesSpam.recording),
			"chutesfull":  answer429(`{"detail":"Infrastructure is at maximum capacity, try again later"}`),
			"sarvambusy":  answer429(`{"error":{"message":"Rate limit exceeded. Please retry after some time.","code":"rate_limit_exceeded_error"}}`),
		}
		wantSent(t, handlers, map[string]sentWant{
			"zai":         {zai.Expect.ErrorMessage, 1},
			"zaiplan":     {zaiPlan.Expect.ErrorMessage, 1},
			"zaiweekly":   {"Weekly/Monthly Limit Exhausted. Your limit will reset at 2026-12-10 05:53:09", 1},
			"zaicredits":  {"Usage limit reached for the past 5 hours. Your limit will reset at 2026-12-07 18:30:00", 1},
			"zaibusy":     {"High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits", 3},
			"github":      {github.Expect.ErrorMessage, 1},
			"ollama":      {ollama.Expect.ErrorMessage, 1},
			"ollama13":    {ollama13.Expect.ErrorMessage, 1},
			"ark":         {ark.Expect.ErrorMessage, 1},
			"longcat":     {longcat.Expect.ErrorMessage, 1},
			"longcatbusy": {"Rate limit exceeded", 3},
			"arkplan":     {arkPlan.Expect.ErrorMessage, 1},
			"workers":     {workersAI.Expect.ErrorMessage, 1},
			"workers3036": {"You have used up your daily free allocation of 10,000 neurons. Please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage.", 1},
			"workersfull": {"No more data centers to forward the request to", 3},
			"arktrial":    {"The account (2101304184) has exhausted the free trial quota of the model (doubao-seed-1-6-250615).", 1},
			"arkbusy":     {"The service is currently unable to handle additional requests due to server overload.", 3},
			"openai":      {"You exceeded your current quota, please check your plan and billing details.", 1},
			"limited":     {"Rate limit reached for requests", 3},
			"moonshotday": {moonshotDay.Expect.ErrorMessage, 1},
			"moonshotrpm": {"Your account org-5f0c2a <ak-f94zc> request reached organization max RPM: 20, please try again after 1 seconds", 3},
			"kimiplan":    {kimiPlan.Expect.ErrorMessage, 1},
			"kimimonth":   {"You've reached kimi monthly usage limit for this billing cycle. Your quota will be refreshed in the next cycle.", 1},
			"kimibusy":    {"The engine is currently overloaded, please try again later", 3},
			"moonshotpay": {"Your account org-5f0c2a <ak-f94zc> is suspended, please check your plan and billing details", 1},
			"sarvam":      {sarvam.Expect.ErrorMessage, 1},
			"chutesspam":  {chutesSpam.Expect.ErrorMessage, 1},
			"chutesfull":  {"Infrastructure is at maximum capacity, try again later", 3},
			"sarvambusy":  {"Rate limit exceeded. Please retry after some time.", 3},
		})
	})
}
