package main

import (
	"net/http"
	// ruleid: debug-mode-enabled
	_ "net/http/pprof"

	"github.com/gin-gonic/gin"
)

func main() {
	// ruleid: debug-mode-enabled
	gin.SetMode(gin.DebugMode)
	// ok: debug-mode-enabled
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	_ = http.ListenAndServe(":8080", r)
}
