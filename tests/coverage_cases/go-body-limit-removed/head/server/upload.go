package server

import (
	"io"
	"net/http"
)

func Upload(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(413)
		return
	}
	store(data)
}
