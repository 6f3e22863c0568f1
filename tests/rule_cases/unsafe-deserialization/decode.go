package ingest

import (
	"encoding/gob"
	"encoding/json"
	"net/http"
)

type Job struct{ Name string }

func Submit(w http.ResponseWriter, r *http.Request) {
	var job Job
	// match: unsafe-deserialization
	if err := gob.NewDecoder(r.Body).Decode(&job); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(job)
}
