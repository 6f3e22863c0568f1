package api

import "net/http"

func Routes(mux *http.ServeMux, requireAuth func(http.Handler) http.Handler) {
	mux.Handle("/api/orders", requireAuth(http.HandlerFunc(listOrders)))
	// match: missing-authorization
	mux.HandleFunc("/admin/export", exportAll)
}

func listOrders(w http.ResponseWriter, r *http.Request) {}
func exportAll(w http.ResponseWriter, r *http.Request)  {}
