package main

import (
	"net/http"
)

func serve(handler http.Handler, key []byte) error {
	return http.ListenAndServe(":8080", handler)
}
