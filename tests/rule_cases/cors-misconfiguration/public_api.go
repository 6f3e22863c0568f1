package web

import "net/http"

// Public, unauthenticated data may use the wildcard: nothing for the rule to report.
func Status(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write([]byte(`{"ok":true}`))
}
