package wire

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// FailedDependency returns res marked to be sent again (X-Should-Retry:
// true) when its status is 424 Failed Dependency: the request failed
// because one it depended on failed (RFC 4918, section 11.4), a gateway's
// upstream, not the request itself. Requesty's router answers so when its
// provider's answer is unusable, "Invalid provider response format" or
// "Provider response missing usage", a transient failure its docs say to
// retry (docs.requesty.ai/features/error-codes). openai-go sends a 4xx
// other than 408, 409 and 429 only once; a 5xx, which this is in all but
// its number, it sends again after its back-off.
//
// A 424 that names the status its upstream answered is that status (see
// upstreamStatus): a model server behind a managed endpoint that refused
// the request itself (a prompt over the model's context, a parameter it
// does not take) answers the same to every try, so a 4xx other than 408
// and 429 there is marked not to be sent again (X-Should-Retry: false),
// and a breaker does not count it (see RetryMark). res is read
// before BoundErrorBody rewrites its body, and its body put back.
func FailedDependency(res *http.Response) *http.Response {
	if res == nil || res.StatusCode != http.StatusFailedDependency || res.Header.Get("X-Should-Retry") != "" {
		return res
	}
	s := upstreamStatus(res)
	return markRetry(res, s < 400 || s >= 500 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests)
}

// upstreamStatus returns the status the model server behind res, a 424,
// answered, or 0 when res does not say. Azure Machine Learning's online
// endpoints answer 424 when the model's container answers other than 200,
// its status in the header ms-azureml-model-error-statuscode
// (learn.microsoft.com/azure/machine-learning,
// how-to-troubleshoot-online-endpoints, "HTTP status codes"). SageMaker's
// InvokeEndpoint answers its ModelError ("Received client error (400) from
// primary …") with 424 and the container's status in OriginalStatusCode,
// Bedrock its ModelErrorException in originalStatusCode
// (docs.aws.amazon.com/botocore, SageMakerRuntime's ModelError and
// BedrockRuntime's ModelErrorException).
func upstreamStatus(res *http.Response) int {
	if s, err := strconv.Atoi(strings.TrimSpace(res.Header.Get("ms-azureml-model-error-statuscode"))); err == nil {
		return s
	}
	if res.Body == nil {
		return 0
	}
	body, err := ErrorBody(res)
	if err != nil {
		return 0
	}
	for _, k := range []string{"OriginalStatusCode", "originalStatusCode"} {
		if v := gjson.GetBytes(body, k); v.Type == gjson.Number {
			return int(v.Int())
		}
	}
	return 0
}
