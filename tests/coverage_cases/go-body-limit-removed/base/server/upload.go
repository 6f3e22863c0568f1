package server

import (
	"io"
	"net/http"
)

func Upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	data, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(413)
		return
	}
	store(data)
}
