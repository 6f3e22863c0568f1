package web

import (
	"html/template"
	"net/http"
)

var page = template.Must(template.New("p").Parse(`<div>{{.Bio}}</div>{{.Sep}}`))

func Profile(w http.ResponseWriter, r *http.Request) {
	// ruleid: xss
	bio := template.HTML(r.URL.Query().Get("bio"))
	// ok: xss
	sep := template.HTML("<hr>")
	_ = page.Execute(w, map[string]any{"Bio": bio, "Sep": sep})
}
