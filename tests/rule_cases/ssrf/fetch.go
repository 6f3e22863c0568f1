package preview

import (
	"io"
	"net/http"
)

const healthURL = "https://status.example.com/health"

func Preview(w http.ResponseWriter, r *http.Request) {
	// ruleid: ssrf
	resp, err := http.Get(r.URL.Query().Get("url"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	// ok: ssrf
	health, _ := http.Get(healthURL)
	_ = health
	_, _ = io.Copy(w, resp.Body)
}
