package preview

import (
	"net/http"
	"time"
)

var client = &http.Client{Timeout: 5 * time.Second}

// Status calls a fixed, operator-configured endpoint: nothing for the rule to report.
func Status(baseURL string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, baseURL+"/health", nil)
	if err != nil {
		return nil, err
	}
	return client.Do(req)
}
