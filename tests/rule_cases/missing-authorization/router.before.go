package api

import "github.com/go-chi/chi/v5"

func NewRouter() *chi.Mux {
	r := chi.NewRouter()
	// ruleid: missing-authorization
	r.Use(authMiddleware)
	r.Get("/api/invoices", listInvoices)
	return r
}
