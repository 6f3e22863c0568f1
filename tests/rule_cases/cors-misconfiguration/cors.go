package web

import (
	"net/http"

	"github.com/gin-contrib/cors"
)

func Reflect(w http.ResponseWriter, r *http.Request) {
	// ruleid: cors-misconfiguration
	w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	w.Header().Set("Access-Control-Allow-Credentials", "true")
}

var permissive = cors.Config{
	// ruleid: cors-misconfiguration
	AllowOriginFunc:  func(origin string) bool { return true },
	AllowCredentials: true,
}

var strict = cors.Config{
	// ok: cors-misconfiguration
	AllowOrigins:     []string{"https://app.example.com"},
	AllowCredentials: true,
}
