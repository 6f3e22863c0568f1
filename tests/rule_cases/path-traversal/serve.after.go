package files

import (
	"net/http"
	"path/filepath"
)

func Serve(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	http.ServeFile(w, r, filepath.Join(baseDir, name))
}
