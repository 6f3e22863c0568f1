package main

import (
	"net/http"

	"github.com/gorilla/csrf"
)

func serve(handler http.Handler, key []byte) error {
	// ruleid: csrf-protection-disabled
	protect := csrf.Protect(key)
	return http.ListenAndServe(":8080", protect(handler))
}
