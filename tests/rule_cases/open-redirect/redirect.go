package web

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

func Continue(w http.ResponseWriter, r *http.Request) {
	// ruleid: open-redirect
	http.Redirect(w, r, r.URL.Query().Get("next"), http.StatusFound)
}

func ContinueGin(c *gin.Context) {
	// ruleid: open-redirect
	c.Redirect(http.StatusFound, c.Query("next"))
}

func Home(w http.ResponseWriter, r *http.Request) {
	// ok: open-redirect
	http.Redirect(w, r, "/dashboard", http.StatusFound)
}
