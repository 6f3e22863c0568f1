package files

import (
	"net/http"
	"os"
	"path/filepath"
)

var baseDir = "/srv/files"

func Download(w http.ResponseWriter, r *http.Request) {
	// ruleid: path-traversal
	data, err := os.ReadFile(filepath.Join(baseDir, r.URL.Query().Get("name")))
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	_, _ = w.Write(data)
}

func DownloadSafe(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if !filepath.IsLocal(name) {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	// ok: path-traversal
	http.ServeFile(w, r, filepath.Join(baseDir, name))
}
