package files

import (
	"net/http"
	"path/filepath"
)

func Serve(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	// ruleid: path-traversal
	if !filepath.IsLocal(name) {
		http.Error(w, "invalid name", http.StatusBadRequest)
		return
	}
	http.ServeFile(w, r, filepath.Join(baseDir, name))
}
